import type { RunConfig } from "../../shared/runConfig.js";

export type ScheduleFields = Pick<RunConfig, "iterations" | "regenerationInterval" | "skillsPerRegen" | "plays" | "actorBatch"> & {
  designer: Pick<RunConfig["designer"], "kind" | "skills">;
  reward: Pick<RunConfig["reward"], "proposerDelay">;
};

// The reference's rollout schedule (an iteration here = one rollout there): games are generated in
// a batch every `regenerationInterval` rollouts and replayed by every rollout in between; the
// designer's reward for a batch is computed once the proposer delay has passed.

/** Rollouts between regenerations. A fixed pool or a library draws new games every rollout, as the reference's fixed-environment baselines do. */
export function regenerationInterval(config: ScheduleFields): number {
  return config.designer.kind === "llm" ? config.regenerationInterval : 1;
}

/** The rollout that generated the games `iteration` plays. */
export function regenerationOf(iteration: number, config: ScheduleFields): number {
  const interval = regenerationInterval(config);
  return Math.floor(iteration / interval) * interval;
}

export function isRegeneration(iteration: number, config: ScheduleFields): boolean {
  return regenerationOf(iteration, config) === iteration;
}

/**
 * The skills of a regeneration: a window of `skillsPerRegen` of the configured skills that moves on
 * by that many each regeneration (round robin); all of them when `skillsPerRegen` is null.
 */
export function activeSkills(regeneration: number, config: ScheduleFields): string[] {
  const skills = config.designer.skills;
  const count = config.skillsPerRegen;
  if (count === null || count >= skills.length) return [...skills];
  const epoch = Math.floor(regeneration / regenerationInterval(config));
  const start = (epoch * count) % skills.length;
  return Array.from({ length: count }, (_, j) => skills[(start + j) % skills.length]!);
}

/** Slot `slot` of a batch targets the active skills in turn. */
export function slotSkill(regeneration: number, slot: number, config: ScheduleFields): string {
  const skills = activeSkills(regeneration, config);
  return skills[slot % skills.length]!;
}

/**
 * Rollouts of a batch whose unhinted plays count towards its designer reward: the proposer delay
 * (at least one rollout), never past the next regeneration or the end of the run.
 */
export function rewardWindow(regeneration: number, config: ScheduleFields): number {
  return Math.max(1, Math.min(config.reward.proposerDelay, regenerationInterval(config), config.iterations - regeneration));
}

/** The rollout at whose end the batch generated at `regeneration` is scored. */
export function rewardDueAt(regeneration: number, config: ScheduleFields): number {
  return regeneration + rewardWindow(regeneration, config) - 1;
}

/** The batch scored at the end of `iteration`, if any. */
export function batchScoredAt(iteration: number, config: ScheduleFields): number | null {
  const regeneration = regenerationOf(iteration, config);
  return rewardDueAt(regeneration, config) === iteration ? regeneration : null;
}

/**
 * The batch whose designer samples the training step of rollout `iteration` holds, if any: the one
 * generated `proposerDelay` rollouts before, as the reference pops `_ENV_SAMPLE_BUFFER[rollout - delay]`
 * (`spade/slime/spade_rollout.py`); it was scored at the end of the rollout before. The reference's
 * flush at the last rollout sits inside `if delay > 0 and env_samples`, so it runs only when the
 * last rollout generates: a batch whose `rollout + delay` is past the run is never trained, here
 * neither.
 */
export function designerBatchTrainedAt(iteration: number, config: ScheduleFields): number | null {
  const regeneration = iteration - Math.max(1, config.reward.proposerDelay);
  return regeneration >= 0 && isRegeneration(regeneration, config) ? regeneration : null;
}

/**
 * Unhinted plays of each game per rollout: `plays` when set, else the reference's
 * ceil(actorBatch / valid games of the batch) (8 with 192 and 24 valid games).
 */
export function playsPerGame(config: Pick<ScheduleFields, "plays" | "actorBatch">, validGames: number): number {
  return config.plays ?? Math.ceil(config.actorBatch / Math.max(1, validGames));
}

/** Unhinted plays of a game are numbered across its rollouts: rollout offset x plays per rollout + index. */
export function unhintedPlayIndex(iteration: number, index: number, config: ScheduleFields, plays: number): number {
  return (iteration - regenerationOf(iteration, config)) * plays + index;
}
