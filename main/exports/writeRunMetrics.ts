import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { listIterations } from "../store/queries/iterations.js";
import { getMetrics } from "../store/queries/metrics.js";
import { getRun, listRuns, type Run } from "../store/queries/runs.js";
import { configHParams } from "./configHParams.js";
import { hparamsSessionEndRecord, hparamsSessionStartRecord, hparamsStatus, tensorboardEventFile, type ScalarPoint } from "./tensorboardEvents.js";

/** A file to write: its path relative to the export folder and its bytes. */
export interface ExportFile {
  path: string;
  bytes: Buffer;
}

export interface MetricsExport {
  files: ExportFile[];
  counts: { runs: number; iterations: number; metrics: number };
  /** Metric names whose values are not numbers (histograms): not exported. */
  structured: string[];
}

/** The runs to export: one, or every run of the workspace oldest first. */
export function runsToExport(db: ReadonlyDb, runId: number | undefined): Run[] {
  if (runId === undefined) return listRuns(db).reverse();
  const run = getRun(db, runId);
  return run ? [run] : [];
}

/**
 * Every run's scalar metrics per iteration as one CSV table (`metrics.csv`: run, name, iteration,
 * step, then one column per metric, empty where a metric was not measured), the format spreadsheets
 * and pandas read; and one file per run (`run-<id>/metrics.csv`: step, then the metrics), what
 * Trackio's CSV import reads. The step is the iteration, as in the TensorBoard files.
 */
export function metricsCsv(db: ReadonlyDb, runs: readonly Run[]): MetricsExport {
  const { table, names, structured } = collect(db, runs);
  const header = ["run", "run_name", "iteration", "step", ...names];
  const lines = [header.map(csvCell).join(",")];
  for (const row of table) lines.push([row.run.id, row.run.name, row.iteration, row.iteration, ...names.map((name) => row.values[name] ?? "")].map(csvCell).join(","));
  const files: ExportFile[] = [{ path: "metrics.csv", bytes: Buffer.from(`${lines.join("\n")}\n`, "utf8") }];
  for (const run of runs) {
    const rows = table.filter((row) => row.run.id === run.id);
    const own = names.filter((name) => rows.some((row) => row.values[name] !== undefined));
    const runLines = [["step", ...own].map(csvCell).join(",")];
    for (const row of rows) runLines.push([row.iteration, ...own.map((name) => row.values[name] ?? "")].map(csvCell).join(","));
    files.push({ path: `run-${run.id}/metrics.csv`, bytes: Buffer.from(`${runLines.join("\n")}\n`, "utf8") });
  }
  return { files, counts: { runs: runs.length, iterations: table.length, metrics: names.length }, structured };
}

/**
 * One TensorBoard event file per run (`run-<id>/events.out.tfevents.<time>.spade`), each metric a
 * scalar tagged `spade/<name>` at step = iteration, so `tensorboard --logdir <out>` shows the runs side by side;
 * the run's config is its HParams session (ended as a success or a failure for a completed or failed run),
 * so the HPARAMS tab compares them by config.
 */
export function metricsTensorboard(db: ReadonlyDb, runs: readonly Run[]): MetricsExport {
  const { table, names, structured } = collect(db, runs);
  const files: ExportFile[] = [];
  for (const run of runs) {
    const finished = new Map(listIterations(db, run.id).map((iteration) => [iteration.iteration, (iteration.finishedAt ?? iteration.startedAt) / 1000]));
    const points: ScalarPoint[] = [];
    for (const row of table.filter((entry) => entry.run.id === run.id)) {
      for (const [tag, value] of Object.entries(row.values)) {
        points.push({ tag: `spade/${tag}`, step: row.iteration, value, wallTime: finished.get(row.iteration) ?? run.createdAt / 1000 });
      }
    }
    const start = run.createdAt / 1000;
    const session = [hparamsSessionStartRecord(configHParams(run.config), start, start)];
    const end = (run.finishedAt ?? run.updatedAt) / 1000;
    if (run.status === "completed" || run.status === "failed") session.push(hparamsSessionEndRecord(run.status === "completed" ? hparamsStatus.success : hparamsStatus.failure, end, end));
    files.push({ path: `run-${run.id}/events.out.tfevents.${Math.floor(start)}.spade`, bytes: Buffer.concat([tensorboardEventFile(points, start), ...session]) });
  }
  return { files, counts: { runs: runs.length, iterations: table.length, metrics: names.length }, structured };
}

interface MetricRow {
  run: Run;
  iteration: number;
  values: Record<string, number>;
}

function collect(db: ReadonlyDb, runs: readonly Run[]): { table: MetricRow[]; names: string[]; structured: string[] } {
  const names = new Set<string>();
  const structured = new Set<string>();
  const table: MetricRow[] = [];
  for (const run of runs) {
    for (const { iteration, metrics } of getMetrics(db, run.id)) {
      const values: Record<string, number> = {};
      for (const [name, value] of Object.entries(metrics)) {
        if (typeof value === "number") {
          values[name] = value;
          names.add(name);
        } else if (value !== null) {
          structured.add(name);
        }
      }
      table.push({ run, iteration, values });
    }
  }
  return { table, names: [...names].sort(), structured: [...structured].sort() };
}

function csvCell(value: string | number): string {
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
