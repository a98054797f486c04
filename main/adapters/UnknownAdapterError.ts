/** An adapter named by id, name or path that the workspace (or the file system) does not have. */
export class UnknownAdapterError extends Error {
  override readonly name = "UnknownAdapterError";
}
