import type { HeldOutScoreView } from "../../shared/api/compareTypes.js";
import { diffConfigs, type ConfigDifference } from "../../shared/configDiff.js";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { listAdapters } from "../store/queries/adapters.js";
import { listEvalResults } from "../store/queries/evalResults.js";
import { getMetrics } from "../store/queries/metrics.js";
import { getRun } from "../store/queries/runs.js";
import { storedRunAblations } from "../selfplay/describeAblations.js";
import { storedDesignerKind } from "../../shared/storedDesignerKind.js";
import { buildComparisonTable, buildHeldOutCurves, type ComparisonTable, type HeldOutCurve } from "../../shared/comparisonTable.js";
import { storedInterval, storedScore } from "../eval/storeEvalReport.js";
import { listTrainingRounds } from "../store/queries/trainingRounds.js";

/** The loop metrics that `spade compare` lines up. */
export const comparedMetrics = ["validityRate", "meanRegret", "meanWinRate", "designerReward", "noveltyRate", "vendiScore", "vendiPerN"] as const;
type Compared = Record<(typeof comparedMetrics)[number], number | null>;

export type HeldOutScore = HeldOutScoreView;

export interface ComparedRun {
  id: number;
  name: string;
  status: string;
  ablations: string[];
  /** The config's `designer.kind` ("llm", "fixed", "library"): designer metrics apply only to "llm". */
  designerKind: string;
  iterations: (Compared & { iteration: number })[];
  /** Means over the run's iterations (metrics that were never measured stay null). */
  summary: Compared & { iterations: number };
  heldOut: HeldOutScore[];
}

export interface RunComparison {
  runs: ComparedRun[];
  /** Config keys whose values differ between the runs. */
  configDiff: ConfigDifference[];
  /** The paper's table: runs x held-out suites (see shared/comparisonTable.ts). */
  table: ComparisonTable;
  curves: HeldOutCurve[];
}

export interface CompareOptions {
  /** The run the table's difference columns are against. Defaults to none. */
  baselineRunId?: number | null;
}

/** Lines up runs' per-iteration loop metrics, summaries, held-out scores, the comparison table and config differences. */
export function compareRuns(db: ReadonlyDb, runIds: readonly number[], options: CompareOptions = {}): RunComparison {
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
    const roundOf = new Map(listTrainingRounds(db, runId).flatMap((round) => (round.adapterId === null ? [] : [[round.adapterId, round.afterIteration] as const])));
    const heldOut: HeldOutScore[] = listAdapters(db, runId).flatMap((adapter) =>
      listEvalResults(db, { adapterId: adapter.id }).map((result) => ({
        adapterId: adapter.id,
        adapter: adapter.name,
        suite: result.suite,
        accuracy: result.accuracy,
        meanReturn: result.meanReturn,
        winRate: result.winRate,
        score: storedScore(result),
        interval: storedInterval(result),
        n: result.n,
        afterIteration: roundOf.get(adapter.id) ?? null,
        createdAt: result.createdAt,
      })),
    );
    return { id: run.id, name: run.name, status: run.status, ablations, designerKind: storedDesignerKind(run.config), iterations, summary, heldOut };
  });
  const inputs = runs.map((run) => ({
    id: run.id,
    name: run.name || null,
    badges: run.ablations,
    heldOut: run.heldOut.flatMap((point) => (point.score === null ? [] : [{ ...point, score: point.score }])),
  }));
  return { runs, configDiff: diffConfigs(configs), table: buildComparisonTable(inputs, options.baselineRunId ?? null), curves: buildHeldOutCurves(inputs) };
}
