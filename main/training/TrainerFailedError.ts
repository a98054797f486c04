/** The trainer (or the conversion) exited with an error, or did not leave a usable adapter. */
export class TrainerFailedError extends Error {
  override readonly name = "TrainerFailedError";
  constructor(
    message: string,
    /** The trainer's log so far (its tail when long). */
    readonly log: string,
  ) {
    super(message);
  }
}
