/** A response body that is not what the OpenAI chat API specifies. */
export class OpenAiResponseError extends Error {
  override name = "OpenAiResponseError";
  constructor(
    readonly url: string,
    readonly problem: string,
  ) {
    super(`POST ${url}: ${problem}`);
  }
}
