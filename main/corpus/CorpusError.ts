/** A corpus cannot be opened or one of its documents cannot be read; the message names the file (and line or row). */
export class CorpusError extends Error {
  override readonly name = "CorpusError";
}
