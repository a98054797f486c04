/** `spade trainer setup` could not create the managed environment: the message names the step, what it said, and the fix. */
export class TrainerSetupError extends Error {
  override readonly name = "TrainerSetupError";
  constructor(
    message: string,
    /** The step that failed: "venv" or "pip". */
    readonly step: "venv" | "pip",
    /** The step's output (its tail). */
    readonly log: string,
  ) {
    super(message);
  }
}
