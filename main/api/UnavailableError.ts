/** A call needs an engine part this process does not have (e.g. the sandbox, the run controller). */
export class UnavailableError extends Error {
  override readonly name = "UnavailableError";
}
