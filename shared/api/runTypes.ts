// What the workbench shows about runs: list rows, details and per-iteration metrics.

/**
 * A run's state. "interrupted": stored as running, but the process that owned it is gone (killed,
 * crashed); it is resumable like a paused run.
 */
export type RunStatus = "running" | "paused" | "stopped" | "failed" | "completed" | "interrupted";

/** A count of one kind of work in the current rollout or training round, e.g. 120 of 384 plays. */
export interface ProgressUnit {
  /** What is counted: "designed", "played", "training steps", ... */
  name: string;
  done: number;
  total: number;
}

/**
 * What a running run is doing now, kept by the process that owns it (and stored, so every window
 * of the workspace sees it): general enough for any phase a run grows (training rounds, ...).
 */
export interface RunProgressSnapshot {
  /** The rollout now running, numbered as stored (0-based; the CLI prints the same k). */
  iteration: number;
  iterations: number;
  /** What the run does now: "starting", "designing", "validating", "hinting", "playing", "scoring", "training". */
  phase: string;
  /** Unit counts of the current rollout (or training round). */
  units: ProgressUnit[];
  /**
   * How much of the current rollout is done (0..1): its designs and plays done over those it will
   * make, never lower than an earlier snapshot of the same rollout (a total that grows as the
   * batch's valid games are known does not move it back); 1 once the rollout is scored. Absent in progress stored by an older version.
   */
  rolloutFraction?: number;
  /** The current training round, while one runs. */
  training: { round: number; phase: string; step: number; steps: number; loss: number | null } | null;
  /** Estimated milliseconds until the run ends, from the rates measured so far; null until measurable. */
  etaMs: number | null;
  /** When this progress was taken (ms since the epoch). */
  updatedAt: number;
}

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
  /** What the run is doing now (running runs), else null. */
  progress?: RunProgressSnapshot | null;
}

export interface RunDetail extends RunSummary {
  /** The run's stored config, as given to `spade run`. */
  config: Record<string, unknown>;
  /** Set when at least one iteration is done (or the run ended) and no attempt is valid. */
  diagnosis?: RunDiagnosis | null;
  /** The games whose hinted plays were skipped, each with why (e.g. the hint prompt did not fit the context). */
  hintsSkipped?: { environmentId: number; reason: string }[];
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
