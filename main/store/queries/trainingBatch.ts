// Reads for a training round's batch: a run's environments and designer attempts in an iteration range.
import type { ReadonlyDb } from "../DatabaseHandle.js";
import { statement } from "../statement.js";

/** A valid environment of the run played in the range (its plays are one agent group). */
export interface BatchEnvironment {
  id: number;
  iteration: number;
  skill: string | null;
}

/** A valid first designer attempt in the range, with the designer reward stored for it (null until scored). */
export interface BatchDesignerAttempt {
  id: number;
  iteration: number;
  attempt: number;
  skill: string | null;
  designerReward: number | null;
  adapter: string | null;
}

/** Valid environments of iterations `from..to` (inclusive), oldest first. */
export function listBatchEnvironments(db: ReadonlyDb, runId: number, from: number, to: number): BatchEnvironment[] {
  return statement(
    db,
    `SELECT id, iteration, skill FROM environments
     WHERE run_id = ? AND iteration BETWEEN ? AND ? AND valid = 1 AND source IN ('designer', 'repair', 'fixed')
     ORDER BY iteration, slot, attempt`,
  ).all(runId, from, to) as BatchEnvironment[];
}

/** The designer's attempts of iterations `from..to`: first attempts (valid or not) and repairs, oldest first. */
export function listBatchDesignerAttempts(db: ReadonlyDb, runId: number, from: number, to: number): (BatchDesignerAttempt & { valid: boolean; source: string })[] {
  const rows = statement(
    db,
    `SELECT e.id, e.iteration, e.attempt, e.skill, e.valid, e.source, e.adapter, s.designer_reward AS designerReward
     FROM environments e LEFT JOIN env_stats s ON s.environment_id = e.id
     WHERE e.run_id = ? AND e.iteration BETWEEN ? AND ? AND e.source IN ('designer', 'repair')
     ORDER BY e.iteration, e.slot, e.attempt`,
  ).all(runId, from, to) as (BatchDesignerAttempt & { valid: number; source: string })[];
  return rows.map((row) => ({ ...row, valid: row.valid === 1 }));
}
