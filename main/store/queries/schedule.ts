// Reads and writes of the rollout schedule: which rollout played an episode, the delayed designer
// reward's advantage, and the loop's notes on a run.
import type { ReadonlyDb, WritableDb } from "../DatabaseHandle.js";
import { toFlag } from "../json.js";
import { statement } from "../statement.js";

/** Records the rollout (iteration) that played an episode. */
export function setEpisodeRollout(db: WritableDb, episodeId: number, rollout: number): void {
  statement(db, `UPDATE episodes SET rollout = ? WHERE id = ?`).run(rollout, episodeId);
}

/** One stored play as the delayed reward reads it. */
export interface ScheduledPlay {
  hinted: boolean;
  canary: boolean;
  playIndex: number;
  /** The rollout that played it; null for plays stored before the schedule existed. */
  rollout: number | null;
  return: number;
  timedOut: boolean;
  error: string | null;
  /** The infrastructure failed it (a time-out, a sandbox or backend error): the reference drops such a trajectory (`TrajectoryStatus.FAILED`); a `step()` exception that scored is not failed. */
  failed: boolean;
}

/** An environment's plays with the rollout each was played in. */
export function listScheduledPlays(db: ReadonlyDb, environmentId: number): ScheduledPlay[] {
  const rows = statement(
    db,
    `SELECT hinted, canary, play_index, rollout, "return", timed_out, error,
       EXISTS (SELECT 1 FROM turns t WHERE t.episode_id = episodes.id AND json_extract(t.info, '$.stepError') = 1) AS scored_step_error
     FROM episodes WHERE environment_id = ? ORDER BY hinted, play_index, canary DESC`,
  ).all(environmentId) as {
    hinted: number; canary: number; play_index: number; rollout: number | null; return: number; timed_out: number; error: string | null; scored_step_error: number;
  }[];
  return rows.map((row) => ({
    hinted: row.hinted === 1,
    canary: row.canary === 1,
    playIndex: row.play_index,
    rollout: row.rollout,
    return: row.return,
    timedOut: row.timed_out === 1,
    error: row.error,
    failed: row.timed_out === 1 || (row.error !== null && row.scored_step_error !== 1),
  }));
}

/** Whether a play of the environment hit the deadline in a rollout before `rollout` (the reference's hung-game blacklist). */
export function hungBefore(db: ReadonlyDb, environmentId: number, rollout: number): boolean {
  return statement(db, `SELECT 1 FROM episodes WHERE environment_id = ? AND timed_out = 1 AND rollout < ? LIMIT 1`).get(environmentId, rollout) !== undefined;
}

/** Stores the designer's advantage for a scored environment (null and masked when it is left out of the update). */
export function setDesignerAdvantage(db: WritableDb, environmentId: number, advantage: number | null, masked: boolean): void {
  statement(db, `UPDATE env_stats SET designer_advantage = ?, designer_masked = ? WHERE environment_id = ?`).run(advantage, toFlag(masked), environmentId);
}

export interface DesignerAdvantage {
  environmentId: number;
  designerReward: number | null;
  advantage: number | null;
  masked: boolean | null;
}

/** The designer's reward and advantage of an environment, or null when it is not scored yet. */
export function getDesignerAdvantage(db: ReadonlyDb, environmentId: number): DesignerAdvantage | null {
  const row = statement(db, `SELECT designer_reward, designer_advantage, designer_masked FROM env_stats WHERE environment_id = ?`).get(environmentId) as
    | { designer_reward: number | null; designer_advantage: number | null; designer_masked: number | null }
    | undefined;
  if (!row) return null;
  return { environmentId, designerReward: row.designer_reward, advantage: row.designer_advantage, masked: row.designer_masked === null ? null : row.designer_masked === 1 };
}

export interface RunNote {
  iteration: number;
  kind: string;
  text: string;
  createdAt: number;
}

/** Keeps one note of a kind per run and iteration (e.g. "document trimmed"); a second one replaces the first. */
export function putRunNote(db: WritableDb, runId: number, iteration: number, kind: string, text: string): void {
  statement(db, `INSERT INTO run_notes (run_id, iteration, kind, text, created_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (run_id, kind, iteration) DO UPDATE SET text = excluded.text`).run(runId, iteration, kind, text, Date.now());
}

export function listRunNotes(db: ReadonlyDb, runId: number): RunNote[] {
  const rows = statement(db, `SELECT iteration, kind, text, created_at FROM run_notes WHERE run_id = ? ORDER BY iteration, id`).all(runId) as { iteration: number; kind: string; text: string; created_at: number }[];
  return rows.map((row) => ({ iteration: row.iteration, kind: row.kind, text: row.text, createdAt: row.created_at }));
}
