// The comparison's held-out table and curves -> what the Compare page draws. Pure: tested alone.
import type { HeldOutCurve } from "../../../../../shared/comparisonTable.js";
import type { ChartRow } from "../../../lib/charts/prepareMetricSeries.js";
import { runSeriesKey } from "../../../lib/charts/prepareMetricSeries.js";

/** One row per rollout any run was evaluated after, one column per run (`run<id>`); gaps stay null. */
export function prepareHeldOutCurve(curve: HeldOutCurve): ChartRow[] {
  const iterations = [...new Set(curve.series.flatMap((series) => series.points.map((point) => point.iteration)))].sort((a, b) => a - b);
  return iterations.map((iteration) => {
    const row = { iteration } as ChartRow;
    for (const series of curve.series) row[runSeriesKey(series.runId)] = series.points.find((point) => point.iteration === iteration)?.score ?? null;
    return row;
  });
}

/** The curves worth drawing: those with a point for at least one run. */
export function drawnHeldOutCurves(curves: readonly HeldOutCurve[]): HeldOutCurve[] {
  return curves.filter((curve) => curve.series.some((series) => series.points.length > 0));
}

/** The file an export of the table is saved as. */
export function tableFileName(runIds: readonly number[], format: "csv" | "markdown" | "latex"): string {
  return `spade-compare-${runIds.join("-")}.${format === "markdown" ? "md" : format === "latex" ? "tex" : "csv"}`;
}
