// The comparison from the engine (compareRuns) -> overlay chart rows and config difference cells.
// Pure: tested alone. Missing data stays a gap (null).
import type { ConfigValueView, RunComparisonView } from "../../../../../shared/api/compareTypes.js";
import type { ChartRow } from "../../../lib/charts/prepareMetricSeries.js";
import { runSeriesKey } from "../../../lib/charts/prepareMetricSeries.js";

/** One row per iteration any run reached, one column per run (`run<id>`). */
export function prepareComparisonSeries(view: RunComparisonView, metric: string): ChartRow[] {
  const iterations = [...new Set(view.runs.flatMap((run) => run.iterations.map((row) => row.iteration)))].sort((a, b) => a - b);
  return iterations.map((iteration) => {
    const row = { iteration } as ChartRow;
    for (const run of view.runs) {
      const value = run.iterations.find((it) => it.iteration === iteration)?.[metric];
      row[runSeriesKey(run.id)] = typeof value === "number" && Number.isFinite(value) ? value : null;
    }
    return row;
  });
}

/** The metrics at least one run has a value for, in the engine's order. */
export function comparedMetricNames(view: RunComparisonView): string[] {
  return view.metrics.filter((metric) => view.runs.some((run) => run.iterations.some((row) => typeof row[metric] === "number")));
}

/** A config value as a table cell: "not set" when the run's config lacks the key. */
export function formatConfigValue(value: ConfigValueView): string {
  return value.set ? JSON.stringify(value.value) : "not set";
}
