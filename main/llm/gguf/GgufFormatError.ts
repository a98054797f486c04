/** A file that is not a GGUF llama.cpp can safely load: malformed, truncated, or missing required metadata. */
export class GgufFormatError extends Error {
  override name = "GgufFormatError";
  constructor(
    /** The file that was refused. */
    readonly path: string,
    /** What is wrong, without the path. */
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}
