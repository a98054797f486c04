// A run's training rounds as the workbench shows them (the run page's "Training" card).

export interface TrainingRoundView {
  round: number;
  afterIteration: number;
  status: "running" | "completed" | "failed" | "rejected";
  adapterId: number | null;
  /** The registered adapter's name (e.g. `run-3-r0`), null when none was registered. */
  adapterName: string | null;
  parentAdapterId: number | null;
  /** Numeric metrics only (loss, meanRatio, maxRatio, clippedFraction, kl, gradNorm, tokens, seconds, ...). */
  metrics: Record<string, number>;
  /** Why it failed or was rejected, when it was. */
  reason: string | null;
  startedAt: number;
  finishedAt: number | null;
}

/** Which adapter the episodes of an iteration were sampled with (the recorded name, null: the base model). */
export interface IterationAdapterView {
  iteration: number;
  adapter: string | null;
  episodes: number;
}

export interface RunTrainingView {
  runId: number;
  rounds: TrainingRoundView[];
  iterations: IterationAdapterView[];
}
