/** A LoRA adapter file that does not fit the base model it is applied to, or is not an adapter at all. */
export class AdapterMismatchError extends Error {
  override name = "AdapterMismatchError";
  constructor(
    /** The adapter file that was refused. */
    readonly path: string,
    /** What is wrong, without the path. */
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}
