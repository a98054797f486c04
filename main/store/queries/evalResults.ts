import type { ReadonlyDb, WritableDb } from "../DatabaseHandle.js";
import { fromJson, toJson } from "../json.js";
import { statement } from "../statement.js";

/** One held-out evaluation of the base model (adapterId null) or an adapter on a suite. */
export interface EvalResult {
  id: number;
  adapterId: number | null;
  /** The suite's name or path. */
  suite: string;
  n: number;
  /** Question suites: correct answers and accuracy. */
  correct: number | null;
  accuracy: number | null;
  /** Environment suites: mean return and win rate. */
  meanReturn: number | null;
  winRate: number | null;
  /** Per-item results (parsed JSON). */
  items: unknown;
  createdAt: number;
}

export type NewEvalResult = Pick<EvalResult, "suite" | "n"> & Partial<Omit<EvalResult, "id" | "suite" | "n" | "createdAt">>;

export interface EvalResultFilter {
  /** An adapter's results; null: the base model's. Defaults to all. */
  adapterId?: number | null;
  suite?: string;
}

interface EvalResultRow {
  id: number;
  adapter_id: number | null;
  suite: string;
  n: number;
  correct: number | null;
  accuracy: number | null;
  mean_return: number | null;
  win_rate: number | null;
  items: string | null;
  created_at: number;
}

export function insertEvalResult(db: WritableDb, result: NewEvalResult): number {
  const row = statement(
    db,
    `INSERT INTO eval_results (adapter_id, suite, n, correct, accuracy, mean_return, win_rate, items, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  ).get(
    result.adapterId ?? null,
    result.suite,
    result.n,
    result.correct ?? null,
    result.accuracy ?? null,
    result.meanReturn ?? null,
    result.winRate ?? null,
    toJson(result.items),
    Date.now(),
  ) as { id: number };
  return row.id;
}

function toEvalResult(row: EvalResultRow): EvalResult {
  return {
    id: row.id,
    adapterId: row.adapter_id,
    suite: row.suite,
    n: row.n,
    correct: row.correct,
    accuracy: row.accuracy,
    meanReturn: row.mean_return,
    winRate: row.win_rate,
    items: fromJson(row.items, "eval_results.items"),
    createdAt: row.created_at,
  };
}

export function getEvalResult(db: ReadonlyDb, id: number): EvalResult | null {
  const row = statement(db, `SELECT * FROM eval_results WHERE id = ?`).get(id) as EvalResultRow | undefined;
  return row ? toEvalResult(row) : null;
}

/** Results oldest first, optionally of one adapter (null = base model) and/or suite. */
export function listEvalResults(db: ReadonlyDb, filter: EvalResultFilter = {}): EvalResult[] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.adapterId === null) where.push("adapter_id IS NULL");
  else if (filter.adapterId !== undefined) {
    where.push("adapter_id = ?");
    params.push(filter.adapterId);
  }
  if (filter.suite !== undefined) {
    where.push("suite = ?");
    params.push(filter.suite);
  }
  const sql = `SELECT * FROM eval_results ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id`;
  return (statement(db, sql).all(...params) as EvalResultRow[]).map(toEvalResult);
}
