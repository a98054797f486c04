/** A stored value cannot be read back (a JSON column edited by hand, a blob of the wrong size). */
export class StoreDataError extends Error {
  override readonly name = "StoreDataError";
  constructor(
    readonly column: string,
    reason: string,
  ) {
    super(`stored ${column} is unreadable: ${reason}`);
  }
}
