/** A query needs a row that is not in the workspace (e.g. the run a lock is taken on). */
export class RecordNotFoundError extends Error {
  override readonly name = "RecordNotFoundError";
  constructor(
    readonly table: string,
    readonly key: string | number,
  ) {
    super(`${table} ${key} does not exist in this workspace`);
  }
}
