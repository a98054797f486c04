// Reads for a training round's batch: the plays of a range of rollouts and the designer samples scored in it.
import type { ReadonlyDb } from "../DatabaseHandle.js";
import { statement } from "../statement.js";

/** One play of a rollout as a training round reads it. */
export interface RolloutPlay {
  id: number;
  environmentId: number;
  /** The rollout that played it (plays stored before episodes recorded it count for their game's iteration). */
  rollout: number;
  hinted: boolean;
  canary: boolean;
  return: number;
  error: string | null;
  /** The episode ended on a `step()` exception that scored a reward (-1 in the reference): a normal trajectory. */
  scoredStepError: boolean;
  /** Its last turn reached an end state (not a turn limit, a cut-off reply or a full context). */
  terminated: boolean;
  adapter: string | null;
}

/** The plays of valid games of the run played in rollouts `from..to` (inclusive), by rollout, game and play. */
export function listRolloutPlays(db: ReadonlyDb, runId: number, from: number, to: number): RolloutPlay[] {
  const rows = statement(
    db,
    `SELECT p.id, p.environment_id AS environmentId, COALESCE(p.rollout, e.iteration) AS rollout, p.hinted, p.canary, p."return" AS ret, p.error, p.adapter,
       EXISTS (SELECT 1 FROM turns t WHERE t.episode_id = p.id AND json_extract(t.info, '$.stepError') = 1) AS scoredStepError,
       COALESCE((SELECT t.terminated FROM turns t WHERE t.episode_id = p.id ORDER BY t.idx DESC LIMIT 1), 0) AS terminated
     FROM episodes p JOIN environments e ON e.id = p.environment_id
     WHERE p.run_id = ? AND e.valid = 1 AND COALESCE(p.rollout, e.iteration) BETWEEN ? AND ?
     ORDER BY rollout, e.iteration, e.slot, e.attempt, p.hinted, p.canary DESC, p.play_index`,
  ).all(runId, from, to) as { id: number; environmentId: number; rollout: number; hinted: number; canary: number; ret: number; error: string | null; adapter: string | null; scoredStepError: number; terminated: number }[];
  return rows.map((row) => ({
    id: row.id,
    environmentId: row.environmentId,
    rollout: row.rollout,
    hinted: row.hinted === 1,
    canary: row.canary === 1,
    return: row.ret,
    error: row.error,
    scoredStepError: row.scoredStepError === 1,
    terminated: row.terminated === 1,
    adapter: row.adapter,
  }));
}

/** A valid designer sample of a regeneration with the advantage stored when its delayed reward was scored. */
export interface ScoredDesignerSample {
  id: number;
  iteration: number;
  attempt: number;
  skill: string | null;
  adapter: string | null;
  designerReward: number | null;
  /** null: not scored yet, or masked out of the designer's update. */
  advantage: number | null;
  masked: boolean;
}

/** The valid designer generations of the batches generated at `regenerations` (whichever attempt was valid), oldest first. */
export function listScoredDesignerSamples(db: ReadonlyDb, runId: number, regenerations: readonly number[]): ScoredDesignerSample[] {
  const query = statement(
    db,
    `SELECT e.id, e.iteration, e.attempt, e.skill, e.adapter, s.designer_reward AS designerReward, s.designer_advantage AS advantage, s.designer_masked AS masked
     FROM environments e LEFT JOIN env_stats s ON s.environment_id = e.id
     WHERE e.run_id = ? AND e.iteration = ? AND e.valid = 1 AND e.source = 'designer'
     ORDER BY e.slot, e.attempt`,
  );
  return regenerations.flatMap((regeneration) =>
    (query.all(runId, regeneration) as (Omit<ScoredDesignerSample, "masked"> & { masked: number | null })[]).map((row) => ({ ...row, masked: row.masked === 1 })),
  );
}

/** The iterations in which the run's designer wrote games (its regenerations), oldest first. */
export function listDesignerIterations(db: ReadonlyDb, runId: number): number[] {
  return statement(db, `SELECT DISTINCT iteration FROM environments WHERE run_id = ? AND source = 'designer' ORDER BY iteration`).pluck().all(runId) as number[];
}
