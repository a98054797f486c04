/**
 * A training round the loop asks for after an iteration (issue: training inside the run). The
 * loop calls it once per completed iteration, before the next one starts; the step decides
 * whether a round is due, and may unload and reload the backend with a new adapter. It must be
 * idempotent across resume: a round already completed for `iteration` is not run again.
 */
export interface TrainingStep {
  /** Checks, before the run's first rollout, what its rounds will need (a refusal fails the run at once). Defaults to no check. */
  beforeRun?(): Promise<void>;
  afterIteration(iteration: number, signal?: AbortSignal): Promise<"done" | "interrupted">;
}
