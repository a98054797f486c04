/** The server could not be reached, or dropped the connection, on every attempt. */
export class OpenAiConnectionError extends Error {
  override name = "OpenAiConnectionError";
  constructor(
    readonly url: string,
    readonly attempts: number,
    cause: unknown,
  ) {
    super(`POST ${url}: connection failed after ${attempts} attempt(s): ${describeCause(cause)}`, { cause });
  }
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner = (cause as { cause?: unknown }).cause;
  const code = inner && typeof inner === "object" && "code" in inner ? ` (${String((inner as { code: unknown }).code)})` : "";
  return `${cause.message}${code}`;
}
