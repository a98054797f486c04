import { DatabaseOpenError } from "./DatabaseOpenError.js";

/**
 * The path given as a workspace is not one: missing (read-only), empty, not SQLite, or another
 * application's database. Bad input, not a failure: the CLI exits 2, as for a bad argument.
 */
export class NotAWorkspaceError extends DatabaseOpenError {
  override readonly name: string = "NotAWorkspaceError";
}
