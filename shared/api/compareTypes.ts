// Runs side by side (`spade compare` as the workbench shows it).
import type { ComparisonTable, HeldOutCurve } from "../comparisonTable.js";

/** A run's value for one differing config key; `set: false` when the run's config lacks the key. */
export type ConfigValueView = { set: true; value: unknown } | { set: false };

export interface ConfigDifferenceView {
  /** Dotted key, e.g. `memory.enabled`. */
  key: string;
  /** One per compared run, in the order the runs were asked for. */
  values: ConfigValueView[];
}

export interface HeldOutScoreView {
  adapterId: number | null;
  adapter: string | null;
  suite: string;
  accuracy: number | null;
  meanReturn: number | null;
  winRate: number | null;
  /** The suite's score (accuracy, pass@1 or mean return). */
  score: number | null;
  /** Its 95% interval (`scoreInterval`: Wilson's for items scored 0 or 1, else the bootstrap) over items; null when the stored items do not say. */
  interval: [number, number] | null;
  n: number;
  /** The rollout the evaluated adapter's training round followed; null for an adapter from elsewhere. */
  afterIteration: number | null;
  createdAt: number;
}

/** Metric values by name (null where the loop measured nothing). */
export type MetricValues = Record<string, number | null>;

export interface ComparedRunView {
  id: number;
  name: string | null;
  status: string;
  /** What the run's config switches off or changes, e.g. "no memory", "reward: regret". */
  ablations: string[];
  /** The config's `designer.kind` ("llm", "fixed", "library"): designer metrics apply only to "llm". */
  designerKind: string;
  iterations: (MetricValues & { iteration: number })[];
  /** Means over the run's iterations. */
  summary: MetricValues;
  heldOut: HeldOutScoreView[];
}

export interface RunComparisonView {
  /** The compared metric names, in display order. */
  metrics: string[];
  runs: ComparedRunView[];
  configDiff: ConfigDifferenceView[];
  /** The paper's table: runs x held-out suites, with intervals, the mean and the difference to a baseline run. */
  table: ComparisonTable;
  /** Held-out scores over rollouts, one line per run per suite. */
  curves: HeldOutCurve[];
}
