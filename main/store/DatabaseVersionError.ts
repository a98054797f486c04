/** The database's schema version is one this app cannot use (newer, or older on a read-only open). */
export class DatabaseVersionError extends Error {
  override readonly name = "DatabaseVersionError";
  constructor(
    readonly path: string,
    readonly foundVersion: number,
    readonly supportedVersion: number,
  ) {
    super(
      foundVersion > supportedVersion
        ? `workspace database ${path} has schema version ${foundVersion}, newer than the ${supportedVersion} this app knows: ` +
            `it was written by a newer SPADE Workbench; update the app or use another workspace`
        : `workspace database ${path} has schema version ${foundVersion}, older than the ${supportedVersion} this app needs, ` +
            `and it was opened read-only: open it once for writing to upgrade it`,
    );
  }
}
