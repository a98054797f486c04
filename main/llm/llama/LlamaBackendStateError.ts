/** A call on a backend that is disposed, or unloaded (waiting for `reload()`). */
export class LlamaBackendStateError extends Error {
  override name = "LlamaBackendStateError";
}
