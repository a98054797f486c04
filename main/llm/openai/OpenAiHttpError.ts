/** A non-success HTTP status from an OpenAI-compatible server (after any retries). */
export class OpenAiHttpError extends Error {
  override name = "OpenAiHttpError";
  constructor(
    readonly url: string,
    readonly status: number,
    /** The start of the response body (servers put the reason there). */
    readonly bodyExcerpt: string,
  ) {
    super(`POST ${url} failed with HTTP ${status}: ${bodyExcerpt || "(empty body)"}`);
  }
}
