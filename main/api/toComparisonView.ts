// main/experiments/compareRuns's answer -> the API's comparison view. `undefined` (a key a run's
// config lacks) would turn into null on the wire, so it becomes an explicit `set: false`.
import type { RunComparisonView } from "../../shared/api/compareTypes.js";
import { comparedMetrics, type RunComparison } from "../experiments/compareRuns.js";

export function toComparisonView(comparison: RunComparison): RunComparisonView {
  return {
    metrics: [...comparedMetrics],
    runs: comparison.runs.map((run) => ({
      id: run.id,
      name: run.name || null,
      status: run.status,
      ablations: run.ablations,
      designerKind: run.designerKind,
      iterations: run.iterations,
      summary: run.summary,
      heldOut: run.heldOut,
    })),
    configDiff: comparison.configDiff.map((difference) => ({
      key: difference.key,
      values: difference.values.map((value) => (value === undefined ? { set: false as const } : { set: true as const, value })),
    })),
    table: comparison.table,
    curves: comparison.curves,
  };
}
