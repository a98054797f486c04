// Reads of a library run's plays for its difficulty controller.
import type { ReadonlyDb } from "../DatabaseHandle.js";
import { statement } from "../statement.js";

/** One finished unhinted play of a library environment: the problem's stored code and the play's return. */
export interface LibraryPlay {
  rollout: number;
  code: string;
  return: number;
}

/**
 * The run's finished unhinted plays (no error) of rollouts in [from, to), in the order the
 * difficulty controller takes them: by rollout, then slot, then play index.
 */
export function listLibraryPlays(db: ReadonlyDb, runId: number, from: number, to: number): LibraryPlay[] {
  return statement(
    db,
    `SELECT ep.rollout AS rollout, e.code AS code, ep."return" AS "return"
       FROM episodes ep JOIN environments e ON e.id = ep.environment_id
      WHERE ep.run_id = ? AND ep.hinted = 0 AND ep.error IS NULL AND ep.rollout >= ? AND ep.rollout < ? AND e.code IS NOT NULL
      ORDER BY ep.rollout, e.slot, ep.play_index, ep.canary DESC`,
  ).all(runId, from, to) as LibraryPlay[];
}
