// `spade report --json`: a CLI contract other tools rely on. Extend only compatibly.
import type { RunDiagnosis } from "./api/runTypes.js";
import type { EnvStatistics } from "./envStatistics.js";

export interface ReportEpisode {
  id: number;
  hinted: boolean;
  return: number;
  turns: number;
  error: string | null;
  /** Extension: the canary play (the rollout's first unhinted play, alone; counted in the statistics as one of its plays). */
  canary: boolean;
  /** Extension: the adapter it was sampled with: its registry id, the recorded name when unregistered, null for the base model. */
  adapterId: string | number | null;
  /** Extension: why the play was cut off, as its last turn stored it (`length`: the reply filled its token budget or the context), else null. */
  stop?: string | null;
  /** Extension: the rollout (iteration) it was played in: its game's iteration, or a replay rollout after it. */
  rollout?: number;
}

export interface ReportEnvironment extends EnvStatistics {
  id: number;
  iteration: number;
  className: string | null;
  valid: boolean;
  validationError: string | null;
  novel: boolean | null;
  hint: string | null;
  designerReward: number | null;
  documentId: string | null;
  episodes: ReportEpisode[];
  /** Extensions. */
  slot: number;
  attempt: number;
  skill: string | null;
  /** Extension: the validation's warnings ("check: detail"), failed extra checks that did not invalidate it (outside validator.strict). */
  validationWarnings?: string[];
  /** Extension: the first lines of the designer's raw reply, for invalid attempts (null otherwise). */
  replyHead?: string | null;
  /** The adapter the designer attempt was sampled with (as for episodes). */
  adapterId: string | number | null;
  /** Extension: why this game's hinted plays were skipped (its hint prompt did not fit), else null. */
  hintSkipped?: string | null;
}

/** One training round inside the run (extension). */
export interface ReportTrainingRound {
  round: number;
  afterIteration: number;
  status: "completed" | "failed" | "rejected" | "running";
  adapterId: string | number | null;
  parentAdapterId: string | number | null;
  /** loss, meanRatio, maxRatio, clippedFraction, kl, gradNorm, tokens, seconds, mismatch, left-out counts, reason. */
  metrics: Record<string, unknown>;
}

export interface ReportRun {
  id: number;
  status: "running" | "paused" | "stopped" | "failed" | "completed" | "interrupted";
  iterationsCompleted: number;
  environments: ReportEnvironment[];
  /** Extensions: the run's name, error and what it ablates. */
  name: string;
  error: string | null;
  ablations: string[];
  /** Extension: why no attempt is valid, when none is (see the run page's banner). */
  diagnosis?: RunDiagnosis | null;
  /** Extension: the run's training rounds, in order (empty when it does not train). */
  trainingRounds: ReportTrainingRound[];
  /** Extension: the lines of the run's corpus that are not documents and were left out, counted, the first few named by file and line; null when none were. */
  corpusSkipped?: string | null;
}

export interface RunReport {
  runs: ReportRun[];
}
