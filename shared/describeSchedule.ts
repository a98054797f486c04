import type { RunConfig } from "./runConfig.js";

export type ScheduleConfig = Pick<RunConfig, "iterations" | "regenerationInterval"> & { designer: Pick<RunConfig["designer"], "kind"> };

/**
 * When a designed run's games are designed, said once at its start: with `regenerationInterval`
 * above 1 the rollouts between two regenerations replay the last batch, and a run no longer than
 * one interval designs in rollout 0 only. Null when every rollout designs (an interval of 1, a
 * fixed pool or a library, or a single rollout).
 */
export function describeSchedule(config: ScheduleConfig): string | null {
  const interval = config.regenerationInterval;
  if (config.designer.kind !== "llm" || interval <= 1 || config.iterations <= 1) return null;
  const last = config.iterations - 1;
  const replays = last === 1 ? "rollout 1 replays" : `rollouts 1-${last} replay`;
  if (interval >= config.iterations) {
    return `games are designed in rollout 0 only (regenerationInterval ${interval}, ${config.iterations} iterations): ${replays} that batch; a lower "regenerationInterval" designs more often`;
  }
  const designing: number[] = [];
  for (let rollout = 0; rollout < config.iterations; rollout += interval) designing.push(rollout);
  return `games are designed every ${interval} rollouts (in rollouts ${designing.join(", ")}); the rollouts between replay the last batch`;
}
