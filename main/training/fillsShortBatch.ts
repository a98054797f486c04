import type { ScheduleFields } from "../selfplay/rolloutSchedule.js";

/**
 * Whether a round's short agent batch is filled with copies, as the reference fills it: designed
 * games whose plays follow the actor batch (`upsample_trajectories`, `orchestrator.py`; a fixed
 * `plays` is short by design) and every library run (`fixed_env_rollout.py` copies samples up to
 * the global batch; there at random, here round-robin).
 */
export function fillsShortBatch(schedule: Pick<ScheduleFields, "plays" | "designer">): boolean {
  return schedule.plays === null || schedule.designer.kind === "library";
}
