/** The file cannot be used as a workspace database: missing, unreadable, or not SQLite. */
export class DatabaseOpenError extends Error {
  override readonly name: string = "DatabaseOpenError";
  constructor(
    readonly path: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(`cannot open workspace database ${path}: ${reason}`, options);
  }
}
