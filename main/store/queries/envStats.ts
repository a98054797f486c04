import type { EnvStatistics } from "../../../shared/envStatistics.js";
import type { ReadonlyDb, WritableDb } from "../DatabaseHandle.js";
import { statement } from "../statement.js";

/** What the plays of one environment say about it, and what the designer earned for it. */
export interface EnvStats extends EnvStatistics {
  environmentId: number;
  designerReward: number | null;
  /** The reward variant that computed `designerReward`, e.g. "blend". */
  rewardKind: string | null;
  stepTimeouts: number;
  updatedAt: number;
}

export type NewEnvStats = Pick<EnvStats, "environmentId" | "plays" | "hintPlays"> & Partial<Omit<EnvStats, "environmentId" | "plays" | "hintPlays" | "updatedAt">>;

interface EnvStatsRow {
  environment_id: number;
  plays: number;
  hint_plays: number;
  win_rate: number | null;
  hint_win_rate: number | null;
  mean_return: number | null;
  hint_mean_return: number | null;
  regret: number | null;
  designer_reward: number | null;
  reward_kind: string | null;
  step_timeouts: number;
  updated_at: number;
}

/** Stores (or replaces) an environment's statistics. */
export function upsertEnvStats(db: WritableDb, stats: NewEnvStats): void {
  statement(
    db,
    `INSERT INTO env_stats (environment_id, plays, hint_plays, win_rate, hint_win_rate, mean_return, hint_mean_return, regret,
       designer_reward, reward_kind, step_timeouts, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (environment_id) DO UPDATE SET plays = excluded.plays, hint_plays = excluded.hint_plays,
       win_rate = excluded.win_rate, hint_win_rate = excluded.hint_win_rate, mean_return = excluded.mean_return,
       hint_mean_return = excluded.hint_mean_return, regret = excluded.regret, designer_reward = excluded.designer_reward,
       reward_kind = excluded.reward_kind, step_timeouts = excluded.step_timeouts, updated_at = excluded.updated_at`,
  ).run(
    stats.environmentId,
    stats.plays,
    stats.hintPlays,
    stats.winRate ?? null,
    stats.hintWinRate ?? null,
    stats.meanReturn ?? null,
    stats.hintMeanReturn ?? null,
    stats.regret ?? null,
    stats.designerReward ?? null,
    stats.rewardKind ?? null,
    stats.stepTimeouts ?? 0,
    Date.now(),
  );
}

export function getEnvStats(db: ReadonlyDb, environmentId: number): EnvStats | null {
  const row = statement(db, `SELECT * FROM env_stats WHERE environment_id = ?`).get(environmentId) as EnvStatsRow | undefined;
  if (!row) return null;
  return {
    environmentId: row.environment_id,
    plays: row.plays,
    hintPlays: row.hint_plays,
    winRate: row.win_rate,
    hintWinRate: row.hint_win_rate,
    meanReturn: row.mean_return,
    hintMeanReturn: row.hint_mean_return,
    regret: row.regret,
    designerReward: row.designer_reward,
    rewardKind: row.reward_kind,
    stepTimeouts: row.step_timeouts,
    updatedAt: row.updated_at,
  };
}
