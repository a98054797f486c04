/**
 * A training round the loop asks for after an iteration (issue: training inside the run). The
 * loop calls it once per completed iteration, before the next one starts; the step decides
 * whether a round is due, and may unload and reload the backend with a new adapter. It must be
 * idempotent across resume: a round already completed for `iteration` is not run again.
 */
export interface TrainingStep {
  /** Checks, before the first iteration, that a round can run at all (the base model's tensor types, the trainer's memory model): a note to show, or throws what to change. */
  prepare?(): Promise<string | null>;
  afterIteration(iteration: number, signal?: AbortSignal): Promise<"done" | "interrupted">;
}
