/** A request that did not complete within the backend's time-out. */
export class OpenAiTimeoutError extends Error {
  override name = "OpenAiTimeoutError";
  constructor(
    readonly url: string,
    readonly timeoutMs: number,
  ) {
    super(`POST ${url} did not complete within ${timeoutMs} ms (raise timeoutMs for long generations)`);
  }
}
