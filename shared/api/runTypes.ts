// What the workbench shows about runs: list rows, details and per-iteration metrics.

export type RunStatus = "running" | "paused" | "stopped" | "failed" | "completed";

export interface RunSummary {
  id: number;
  name: string | null;
  status: RunStatus;
  seed: number;
  /** Iterations the run's config asks for, or null when the config does not say. */
  iterations: number | null;
  iterationsCompleted: number;
  /** Designer attempts stored so far, valid or not. */
  environments: number;
  validEnvironments: number;
  error: string | null;
  /** What the config switches off or changes relative to the SPADE recipe, e.g. "no memory". */
  ablations: string[];
  createdAt: number;
  updatedAt: number | null;
  finishedAt: number | null;
}

export interface RunDetail extends RunSummary {
  /** The run's stored config, as given to `spade run`. */
  config: Record<string, unknown>;
  /** Set when at least one iteration is done (or the run ended) and no attempt is valid. */
  diagnosis?: RunDiagnosis | null;
}

/** One iteration's metrics: scalar values by name, and JSON-valued series (histograms) by name. */
export interface IterationMetrics {
  iteration: number;
  values: Record<string, number>;
  series: Record<string, number[]>;
}

export interface RunMetrics {
  runId: number;
  iterations: IterationMetrics[];
}

/** What most of a run's failed attempts have in common. */
export type RunDiagnosisKind = "noCode" | "promptTooLong" | "timeout" | "sameCheck" | "mixed";

/** Why no attempt of a run became a valid environment: shown as a banner on the run page. */
export interface RunDiagnosis {
  kind: RunDiagnosisKind;
  /** Attempts with this reason. */
  count: number;
  /** Attempts looked at. */
  total: number;
  /** One sentence a user can act on, e.g. "6 of 6 replies contained no Python code: ...". */
  message: string;
}
