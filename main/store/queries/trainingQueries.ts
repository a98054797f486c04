// Reads for training-data export: the played environments and the designer attempts with rewards.
import type { ChatMessage } from "../../../shared/llm.js";
import type { ReadonlyDb } from "../DatabaseHandle.js";
import { fromJson } from "../json.js";
import { statement } from "../statement.js";

/** A valid environment that has at least one counted (non-canary) play: one training group. */
export interface PlayedEnvironment {
  id: number;
  runId: number | null;
  iteration: number | null;
  slot: number | null;
  skill: string | null;
  className: string | null;
}

/** One designer call (first attempt or repair) with the reward the designer earned for it. */
export interface DesignerAttempt {
  id: number;
  runId: number | null;
  iteration: number | null;
  slot: number | null;
  attempt: number | null;
  source: "designer" | "repair";
  skill: string | null;
  difficulty: string | null;
  prompt: ChatMessage[] | null;
  rawReply: string | null;
  valid: boolean;
  validationError: string | null;
  /** null until the environment has been scored. */
  designerReward: number | null;
  rewardKind: string | null;
}

interface AttemptRow {
  id: number;
  run_id: number | null;
  iteration: number | null;
  slot: number | null;
  attempt: number | null;
  source: "designer" | "repair";
  skill: string | null;
  difficulty: string | null;
  prompt: string | null;
  raw_reply: string | null;
  valid: number;
  validation_error: string | null;
  designer_reward: number | null;
  reward_kind: string | null;
}

/** Played environments oldest first, of one run or (runId undefined) of the whole workspace. */
export function listPlayedEnvironments(db: ReadonlyDb, runId?: number): PlayedEnvironment[] {
  const rows = statement(
    db,
    `SELECT e.id, e.run_id AS runId, e.iteration, e.slot, e.skill, e.class_name AS className
     FROM environments e
     WHERE e.valid = 1 AND (@run IS NULL OR e.run_id = @run)
       AND EXISTS (SELECT 1 FROM episodes p WHERE p.environment_id = e.id AND p.canary = 0)
     ORDER BY e.id`,
  ).all({ run: runId ?? null }) as PlayedEnvironment[];
  return rows;
}

/** Designer and repair attempts oldest first, of one run or of the whole workspace. */
export function listDesignerAttempts(db: ReadonlyDb, runId?: number): DesignerAttempt[] {
  const rows = statement(
    db,
    `SELECT e.id, e.run_id, e.iteration, e.slot, e.attempt, e.source, e.skill, e.difficulty, e.prompt, e.raw_reply, e.valid,
       e.validation_error, s.designer_reward, s.reward_kind
     FROM environments e LEFT JOIN env_stats s ON s.environment_id = e.id
     WHERE e.source IN ('designer', 'repair') AND (@run IS NULL OR e.run_id = @run)
     ORDER BY e.id`,
  ).all({ run: runId ?? null }) as AttemptRow[];
  return rows.map((row) => ({
    id: row.id,
    runId: row.run_id,
    iteration: row.iteration,
    slot: row.slot,
    attempt: row.attempt,
    source: row.source,
    skill: row.skill,
    difficulty: row.difficulty,
    prompt: fromJson<ChatMessage[]>(row.prompt, "environments.prompt"),
    rawReply: row.raw_reply,
    valid: row.valid === 1,
    validationError: row.validation_error,
    designerReward: row.designer_reward,
    rewardKind: row.reward_kind,
  }));
}

/** The adapter registered with this file path, if any (the newest when several share it). */
export function findAdapterIdByPath(db: ReadonlyDb, path: string): number | null {
  const id = statement(db, `SELECT id FROM adapters WHERE path = ? ORDER BY id DESC LIMIT 1`).pluck().get(path) as number | undefined;
  return id ?? null;
}
