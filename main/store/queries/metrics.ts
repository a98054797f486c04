import type { ReadonlyDb, WritableDb } from "../DatabaseHandle.js";
import { fromJson } from "../json.js";
import { statement } from "../statement.js";

/**
 * One metric's value: a number (stored in `metrics.value`), a structured value such as a
 * histogram `{ bins, counts }` or an array (JSON in `metrics.json`), or null for "not measured"
 * (a gap in a chart, not a zero).
 */
export type MetricValue = number | null | readonly unknown[] | { readonly [key: string]: unknown };

/** Metric name -> value, e.g. `{ validityRate: 0.8, winRateHistogram: [0, 2, 5, 1] }`. */
export type MetricRecord = Record<string, MetricValue>;

export interface IterationMetrics {
  iteration: number;
  metrics: MetricRecord;
}

interface MetricRow {
  iteration: number;
  name: string;
  value: number | null;
  json: string | null;
}

/** Stores an iteration's metrics in one transaction; a metric stored again for the same iteration is replaced. */
export function putMetrics(db: WritableDb, runId: number, iteration: number, record: MetricRecord): void {
  const put = statement(db, `INSERT OR REPLACE INTO metrics (run_id, iteration, name, value, json) VALUES (?, ?, ?, ?, ?)`);
  db.transaction(() => {
    for (const [name, value] of Object.entries(record)) {
      if (typeof value === "number") {
        // NaN and infinities are not measurements; SQLite would store NaN as NULL anyway.
        put.run(runId, iteration, name, Number.isFinite(value) ? value : null, null);
      } else if (value === null || value === undefined) {
        put.run(runId, iteration, name, null, null);
      } else {
        put.run(runId, iteration, name, null, JSON.stringify(value));
      }
    }
  }).immediate();
}

/** The run's metrics per iteration, in iteration order. */
export function getMetrics(db: ReadonlyDb, runId: number): IterationMetrics[] {
  const rows = statement(db, `SELECT iteration, name, value, json FROM metrics WHERE run_id = ? ORDER BY iteration, name`).all(
    runId,
  ) as MetricRow[];
  const byIteration = new Map<number, MetricRecord>();
  for (const row of rows) {
    let metrics = byIteration.get(row.iteration);
    if (!metrics) byIteration.set(row.iteration, (metrics = {}));
    metrics[row.name] = row.json === null ? row.value : fromJson<MetricValue>(row.json, `metrics.json (${row.name})`);
  }
  return [...byIteration].map(([iteration, metrics]) => ({ iteration, metrics }));
}
