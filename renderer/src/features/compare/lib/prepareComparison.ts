// The comparison from the engine (compareRuns) -> overlay chart rows and config difference cells.
// Pure: tested alone. Missing data stays a gap (null).
import type { ConfigValueView, RunComparisonView } from "../../../../../shared/api/compareTypes.js";
import type { ChartRow } from "../../../lib/charts/prepareMetricSeries.js";
import { runSeriesKey } from "../../../lib/charts/prepareMetricSeries.js";
import { designerMetrics, metricList, noDesignerReason } from "../../runs/lib/prepareRunCharts.js";

/** A run's value of a metric; a designer metric of a run without a designer (fixed pool, library) is no value. */
function comparedValue(run: RunComparisonView["runs"][number], iteration: number, metric: string): number | null {
  if (designerMetrics.includes(metric) && run.designerKind !== "llm") return null;
  const value = run.iterations.find((it) => it.iteration === iteration)?.[metric];
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** One row per iteration any run reached, one column per run (`run<id>`). */
export function prepareComparisonSeries(view: RunComparisonView, metric: string): ChartRow[] {
  const iterations = [...new Set(view.runs.flatMap((run) => run.iterations.map((row) => row.iteration)))].sort((a, b) => a - b);
  return iterations.map((iteration) => {
    const row = { iteration } as ChartRow;
    for (const run of view.runs) row[runSeriesKey(run.id)] = comparedValue(run, iteration, metric);
    return row;
  });
}

/** The metrics at least one run has a value for, in the engine's order (designer metrics only from runs with a designer). */
export function comparedMetricNames(view: RunComparisonView): string[] {
  return view.metrics.filter((metric) => view.runs.some((run) => run.iterations.some((row) => comparedValue(run, row.iteration, metric) !== null)));
}

/**
 * What the Compare page says about designer metrics: runs without a designer (fixed pool, library)
 * have none, so their lines are left out of those charts, or the charts are, when no compared run
 * has a designer. Null when every run has one.
 */
export function designerChartsNote(view: RunComparisonView): string | null {
  const without = view.runs.filter((run) => run.designerKind !== "llm");
  const names = view.metrics.filter((metric) => designerMetrics.includes(metric));
  if (without.length === 0 || names.length === 0) return null;
  const kinds = [...new Set(without.map((run) => run.designerKind))];
  const reason = kinds.map((kind, i) => (i === 0 ? noDesignerReason(kind) : noDesignerReason(kind).replace(/^./, (c) => c.toUpperCase()))).join(" ");
  if (without.length === view.runs.length) return `Not charted: ${metricList(names)}: ${without.length === 1 ? "the run has no designer" : "no compared run has a designer"}; ${reason}`;
  return `Left out of ${metricList(names)}: ${without.map((run) => `#${run.id}`).join(", ")}; ${reason}`;
}

/** A config value as a table cell: "not set" when the run's config lacks the key. */
export function formatConfigValue(value: ConfigValueView): string {
  return value.set ? JSON.stringify(value.value) : "not set";
}
