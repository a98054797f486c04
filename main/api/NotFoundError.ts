/** A call named a row that does not exist (a run, environment, episode, document or play session). */
export class NotFoundError extends Error {
  override readonly name = "NotFoundError";
}
