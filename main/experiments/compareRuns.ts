import type { HeldOutScoreView } from "../../shared/api/compareTypes.js";
import { diffConfigs, type ConfigDifference } from "../../shared/configDiff.js";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { listAdapters } from "../store/queries/adapters.js";
import { listEvalResults } from "../store/queries/evalResults.js";
import { getMetrics } from "../store/queries/metrics.js";
import { getRun } from "../store/queries/runs.js";
import { storedRunAblations } from "../selfplay/describeAblations.js";

/** The loop metrics that `spade compare` lines up. */
export const comparedMetrics = ["validityRate", "meanRegret", "meanWinRate", "designerReward", "noveltyRate", "vendiScore", "vendiPerN"] as const;
type Compared = Record<(typeof comparedMetrics)[number], number | null>;

export type HeldOutScore = HeldOutScoreView;

export interface ComparedRun {
  id: number;
  name: string;
  status: string;
  ablations: string[];
  iterations: (Compared & { iteration: number })[];
  /** Means over the run's iterations (metrics that were never measured stay null). */
  summary: Compared & { iterations: number };
  heldOut: HeldOutScore[];
}

export interface RunComparison {
  runs: ComparedRun[];
  /** Config keys whose values differ between the runs. */
  configDiff: ConfigDifference[];
}

/** Lines up runs' per-iteration loop metrics, summaries, held-out scores and config differences. */
export function compareRuns(db: ReadonlyDb, runIds: readonly number[]): RunComparison {
  const configs: unknown[] = [];
  const runs = runIds.map((runId): ComparedRun => {
    const run = getRun(db, runId);
    if (!run) throw new Error(`run ${runId} does not exist in this workspace`);
    configs.push(run.config);
    const ablations = storedRunAblations(run.config);
    const iterations = getMetrics(db, runId).map(({ iteration, metrics }) => {
      const row = { iteration } as Compared & { iteration: number };
      for (const name of comparedMetrics) row[name] = typeof metrics[name] === "number" ? (metrics[name] as number) : null;
      return row;
    });
    const summary = { iterations: iterations.length } as Compared & { iterations: number };
    for (const name of comparedMetrics) {
      const values = iterations.map((row) => row[name]).filter((value): value is number => value !== null);
      summary[name] = values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
    }
    const heldOut: HeldOutScore[] = listAdapters(db, runId).flatMap((adapter) =>
      listEvalResults(db, { adapterId: adapter.id }).map((result) => ({ adapterId: adapter.id, adapter: adapter.name, suite: result.suite, accuracy: result.accuracy, meanReturn: result.meanReturn, winRate: result.winRate })),
    );
    return { id: run.id, name: run.name, status: run.status, ablations, iterations, summary, heldOut };
  });
  return { runs, configDiff: diffConfigs(configs) };
}
