import type { ReadonlyDb, WritableDb } from "../DatabaseHandle.js";
import { fromJson, toJson } from "../json.js";
import { statement } from "../statement.js";

/** running: under way (or killed while under way); completed: adapter registered and in use; rejected: the gate kept the parent; failed: no adapter. */
export type TrainingRoundStatus = "running" | "completed" | "failed" | "rejected";

/** One training round of a run: after which iteration, what it produced, and its metrics. */
export interface TrainingRound {
  runId: number;
  /** 0, 1, 2, ... in the order the run trained. */
  round: number;
  afterIteration: number;
  status: TrainingRoundStatus;
  /** The adapter this round registered (null until registered, or when it failed). */
  adapterId: number | null;
  /** The adapter in use when it started (null: the base model). */
  parentAdapterId: number | null;
  /** Loss, importance ratios, clipped fraction, KL, grad norm, tokens, seconds, mismatch, left-out counts, reason. */
  metrics: Record<string, unknown>;
  startedAt: number;
  finishedAt: number | null;
}

interface TrainingRoundRow {
  run_id: number;
  round: number;
  after_iteration: number;
  status: TrainingRoundStatus;
  adapter_id: number | null;
  parent_adapter_id: number | null;
  metrics: string | null;
  started_at: number;
  finished_at: number | null;
}

function toRound(row: TrainingRoundRow): TrainingRound {
  return {
    runId: row.run_id,
    round: row.round,
    afterIteration: row.after_iteration,
    status: row.status,
    adapterId: row.adapter_id,
    parentAdapterId: row.parent_adapter_id,
    metrics: fromJson<Record<string, unknown>>(row.metrics, "training_rounds.metrics") ?? {},
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

/**
 * Records that the round after `afterIteration` started and returns it. Idempotent: a round taken
 * up again after a crash keeps its number, start time and parent.
 */
export function startTrainingRound(db: WritableDb, runId: number, afterIteration: number, parentAdapterId: number | null): TrainingRound {
  const existing = findTrainingRound(db, runId, afterIteration);
  if (existing) return existing;
  const { next } = statement(db, `SELECT COALESCE(MAX(round) + 1, 0) AS next FROM training_rounds WHERE run_id = ?`).get(runId) as { next: number };
  statement(
    db,
    `INSERT INTO training_rounds (run_id, round, after_iteration, status, parent_adapter_id, metrics, started_at) VALUES (?, ?, ?, 'running', ?, '{}', ?)`,
  ).run(runId, next, afterIteration, parentAdapterId, Date.now());
  return findTrainingRound(db, runId, afterIteration)!;
}

/** Records the adapter a round registered, while the round is still running (so a resume does not register it twice). */
export function setTrainingRoundAdapter(db: WritableDb, runId: number, round: number, adapterId: number): void {
  statement(db, `UPDATE training_rounds SET adapter_id = ? WHERE run_id = ? AND round = ?`).run(adapterId, runId, round);
}

/** Merges `metrics` into the round's stored metrics. */
export function mergeTrainingRoundMetrics(db: WritableDb, runId: number, round: number, metrics: Record<string, unknown>): void {
  const current = getTrainingRound(db, runId, round);
  if (!current) return;
  statement(db, `UPDATE training_rounds SET metrics = ? WHERE run_id = ? AND round = ?`).run(toJson({ ...current.metrics, ...metrics }), runId, round);
}

/** Ends a round with its final status and metrics (merged into what is stored). */
export function finishTrainingRound(db: WritableDb, runId: number, round: number, status: Exclude<TrainingRoundStatus, "running">, metrics: Record<string, unknown>): void {
  mergeTrainingRoundMetrics(db, runId, round, metrics);
  statement(db, `UPDATE training_rounds SET status = ?, finished_at = ? WHERE run_id = ? AND round = ?`).run(status, Date.now(), runId, round);
}

export function getTrainingRound(db: ReadonlyDb, runId: number, round: number): TrainingRound | null {
  const row = statement(db, `SELECT * FROM training_rounds WHERE run_id = ? AND round = ?`).get(runId, round) as TrainingRoundRow | undefined;
  return row ? toRound(row) : null;
}

/** The round that trained after `afterIteration`, if one was started. */
export function findTrainingRound(db: ReadonlyDb, runId: number, afterIteration: number): TrainingRound | null {
  const row = statement(db, `SELECT * FROM training_rounds WHERE run_id = ? AND after_iteration = ?`).get(runId, afterIteration) as TrainingRoundRow | undefined;
  return row ? toRound(row) : null;
}

/** A run's rounds in order. */
export function listTrainingRounds(db: ReadonlyDb, runId: number): TrainingRound[] {
  return (statement(db, `SELECT * FROM training_rounds WHERE run_id = ? ORDER BY round`).all(runId) as TrainingRoundRow[]).map(toRound);
}

/** Per iteration, the adapters its episodes were sampled with and how many episodes each (the run page's iteration axis). */
export function listIterationAdapters(db: ReadonlyDb, runId: number): { iteration: number; adapter: string | null; episodes: number }[] {
  return statement(
    db,
    `SELECT e.iteration AS iteration, p.adapter AS adapter, COUNT(*) AS episodes
     FROM episodes p JOIN environments e ON e.id = p.environment_id
     WHERE p.run_id = ? AND e.iteration IS NOT NULL
     GROUP BY e.iteration, p.adapter ORDER BY e.iteration, p.adapter`,
  ).all(runId) as { iteration: number; adapter: string | null; episodes: number }[];
}
