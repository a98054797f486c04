/** A trainer worker refused or failed a command, broke the line protocol, or exited. */
export class TrainerWorkerError extends Error {
  override readonly name = "TrainerWorkerError";
  constructor(
    message: string,
    /** The round of the failed train command (null: not a train command, or unknown). */
    readonly round: number | null,
    /** The worker's log text so far (its tail when long). */
    readonly log: string,
  ) {
    super(message);
  }
}
