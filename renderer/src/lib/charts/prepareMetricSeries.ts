// Data -> chart rows. Missing data is a gap (null), never a zero.
import type { RunMetrics } from "../../../../shared/api/runTypes.js";

export type ChartRow = { iteration: number } & Record<string, number | null>;

/** The series key of one run in an overlay chart. */
export function runSeriesKey(runId: number): string {
  return `run${runId}`;
}

/**
 * One row per iteration seen in any run, with one column per run (`run<id>`) holding the metric's
 * value or null where that run has no value for that iteration.
 */
export function prepareMetricSeries(runs: RunMetrics[], metric: string): ChartRow[] {
  const iterations = new Set<number>();
  for (const run of runs) for (const it of run.iterations) iterations.add(it.iteration);
  const rows: ChartRow[] = [];
  for (const iteration of [...iterations].sort((a, b) => a - b)) {
    const row: ChartRow = { iteration } as ChartRow;
    for (const run of runs) {
      const value = run.iterations.find((it) => it.iteration === iteration)?.values[metric];
      row[runSeriesKey(run.runId)] = value === undefined || !Number.isFinite(value) ? null : value;
    }
    rows.push(row);
  }
  return rows;
}

/**
 * The scalar metric names present in any run, known ones first in a fixed order. `always` names
 * are included once any run has an iteration, measured or not (their tile says why it is empty).
 */
export function metricNames(runs: RunMetrics[], preferred: readonly string[], always: readonly string[] = []): string[] {
  const seen = new Set<string>();
  if (runs.some((run) => run.iterations.length > 0)) for (const name of always) seen.add(name);
  for (const run of runs) for (const it of run.iterations) for (const name of Object.keys(it.values)) seen.add(name);
  const known = preferred.filter((name) => seen.has(name));
  const others = [...seen].filter((name) => !preferred.includes(name)).sort();
  return [...known, ...others];
}
