import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { statement } from "../store/statement.js";
import { listRolloutPlays } from "../store/queries/trainingBatch.js";
import { designerRewardScale } from "../selfplay/designerReward.js";
import { regenerationInterval, rewardDueAt, type ScheduleFields } from "../selfplay/rolloutSchedule.js";

/** The schedule with the designer reward's scale (`reward.scale`; absent: "auto"). */
export type ScaledSchedule = ScheduleFields & { reward: ScheduleFields["reward"] & { scale?: number | "auto" } };

/**
 * What the stored designer advantages of the batch generated at `regeneration` are multiplied by
 * in the step of rollout `trainedAt` that trains them. The advantage is stored when the reward is
 * scored (end of rollout r + delay - 1), with the "auto" scale counted on that rollout's agent
 * samples; the reference counts the step that trains them: `compute_env_reward_scale` on
 * `len(env_samples_for_training)` and `len(actor_samples)` of rollout r + delay
 * (`spade/slime/spade_rollout.py`), the actor samples upsampled to the global batch minus that
 * rollout's new designer samples (`upsample_trajectories`, `orchestrator.py`). 1 with a fixed scale.
 */
export function designerScaleFactor(db: ReadonlyDb, runId: number, regeneration: number, trainedAt: number, schedule: ScaledSchedule): number {
  if ((schedule.reward.scale ?? "auto") !== "auto") return 1;
  const interval = regenerationInterval(schedule);
  const designerSamples = validDesignerGames(db, runId, regeneration);
  const stored = designerRewardScale(agentSamples(db, runId, rewardDueAt(regeneration, schedule)), designerSamples, interval);
  const played = agentSamples(db, runId, trainedAt);
  // Upsampled as the training batch is (plays following the actor batch), to the batch minus the rollout's new designer samples.
  const filled = schedule.plays === null && played > 0 ? Math.max(played, schedule.actorBatch - validDesignerGames(db, runId, trainedAt)) : played;
  return designerRewardScale(filled, designerSamples, interval) / stored;
}

/** Unhinted plays of a rollout the infrastructure did not fail (the reference's actor samples). */
function agentSamples(db: ReadonlyDb, runId: number, rollout: number): number {
  return listRolloutPlays(db, runId, rollout, rollout).filter((play) => !play.hinted && (play.error === null || play.scoredStepError)).length;
}

/** The valid designer generations of the batch generated at `regeneration` (0 in a rollout that designs nothing). */
function validDesignerGames(db: ReadonlyDb, runId: number, regeneration: number): number {
  return statement(db, `SELECT COUNT(*) FROM environments WHERE run_id = ? AND iteration = ? AND valid = 1 AND source = 'designer'`).pluck().get(runId, regeneration) as number;
}
