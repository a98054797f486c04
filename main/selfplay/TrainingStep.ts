/**
 * A training round the loop asks for after an iteration (issue: training inside the run). The
 * loop calls it once per completed iteration, before the next one starts; the step decides
 * whether a round is due, and may unload and reload the backend with a new adapter. It must be
 * idempotent across resume: a round already completed for `iteration` is not run again.
 */
export interface TrainingStep {
  /**
   * Runs once before rollout 0 (and on resume): checks that rounds can run (the trainer's Python,
   * its packages and device, the model file, the base model's tensor types, the memory model) and
   * may start the trainer. Returns a note to show (the memory model's prediction), or throws an
   * error that names the fix; the run then fails before any rollout is spent. Defaults to no check.
   */
  prepare?(signal?: AbortSignal): Promise<string | null>;
  afterIteration(iteration: number, signal?: AbortSignal): Promise<"done" | "interrupted">;
}
