import type { ReadonlyDb, WritableDb } from "../DatabaseHandle.js";
import { statement } from "../statement.js";

export type IterationStatus = "running" | "completed";

export interface Iteration {
  runId: number;
  iteration: number;
  startedAt: number;
  finishedAt: number | null;
  status: IterationStatus;
}

interface IterationRow {
  run_id: number;
  iteration: number;
  started_at: number;
  finished_at: number | null;
  status: IterationStatus;
}

function toIteration(row: IterationRow): Iteration {
  return { runId: row.run_id, iteration: row.iteration, startedAt: row.started_at, finishedAt: row.finished_at, status: row.status };
}

/** Records that an iteration started. Idempotent: a resumed iteration keeps its first start time and status. */
export function startIteration(db: WritableDb, runId: number, iteration: number): Iteration {
  statement(db, `INSERT OR IGNORE INTO iterations (run_id, iteration, started_at, status) VALUES (?, ?, ?, 'running')`).run(
    runId,
    iteration,
    Date.now(),
  );
  return getIteration(db, runId, iteration) as Iteration;
}

export function completeIteration(db: WritableDb, runId: number, iteration: number): void {
  statement(db, `UPDATE iterations SET status = 'completed', finished_at = ? WHERE run_id = ? AND iteration = ?`).run(
    Date.now(),
    runId,
    iteration,
  );
}

export function getIteration(db: ReadonlyDb, runId: number, iteration: number): Iteration | null {
  const row = statement(db, `SELECT * FROM iterations WHERE run_id = ? AND iteration = ?`).get(runId, iteration) as IterationRow | undefined;
  return row ? toIteration(row) : null;
}

/** The run's iterations in order. */
export function listIterations(db: ReadonlyDb, runId: number): Iteration[] {
  return (statement(db, `SELECT * FROM iterations WHERE run_id = ? ORDER BY iteration`).all(runId) as IterationRow[]).map(toIteration);
}
