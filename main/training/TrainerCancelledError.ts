/** The trainer was stopped: cancelled through its AbortSignal, or over its time limit. */
export class TrainerCancelledError extends Error {
  override readonly name = "TrainerCancelledError";
  constructor(
    message: string,
    readonly log: string,
  ) {
    super(message);
  }
}
