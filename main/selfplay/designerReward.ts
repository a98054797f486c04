import type { RewardConfig } from "../../shared/runConfig.js";
import type { EnvStatistics } from "./envStatistics.js";

const clip = (value: number, low: number, high: number) => Math.max(low, Math.min(high, value));

/** 1 on the plateau, falling linearly to 0 over `ramp` on either side. */
export function plateauScore(winRate: number, [low, high]: [number, number], ramp: number): number {
  if (winRate >= low && winRate <= high) return 1;
  const distance = winRate < low ? low - winRate : winRate - high;
  return ramp <= 0 ? 0 : clip(1 - distance / ramp, 0, 1);
}

/** Fast/slow EMA gap of win rate per skill (the reference's learning-potential tracker). */
export function learningPotential(winRates: readonly number[], gammaFast = 0.99, gammaSlow = 0.95): number {
  let fast: number | null = null;
  let slow: number | null = null;
  let potential = 0;
  for (const rate of winRates) {
    if (fast === null || slow === null) {
      fast = slow = rate;
      potential = 0;
    } else {
      fast = (1 - gammaFast) * fast + gammaFast * rate;
      slow = (1 - gammaSlow) * slow + gammaSlow * rate;
      potential = Math.abs(fast - slow) / ((gammaFast - gammaSlow) * 2);
    }
  }
  return potential;
}

export interface DesignerRewardInput {
  stats: EnvStatistics;
  /** A play hit the step deadline. */
  timedOut: boolean;
  /** Win rates of earlier environments of the same skill in this run, oldest first (learningPotential). */
  skillHistory?: readonly number[];
}

/** The designer's reward for one played environment, by the configured variant. */
export function designerReward(input: DesignerRewardInput, config: RewardConfig): number {
  if (input.timedOut) return config.timeoutPenalty;
  const p = input.stats.winRate ?? 0;
  const regretTerm = clip((input.stats.regret ?? 0) / config.regretScale, 0, 1);
  switch (config.kind) {
    case "blend":
      return config.regretWeight * regretTerm + (1 - config.regretWeight) * plateauScore(p, config.plateau, config.ramp);
    case "regret":
      return regretTerm;
    case "solveRate":
      return plateauScore(p, config.plateau, config.ramp);
    case "learningPotential":
      return learningPotential([...(input.skillHistory ?? []), p]);
    case "variance": {
      const variance = p * (1 - p);
      return Math.exp(-((variance - 0.25) ** 2) / 0.02);
    }
    case "azr":
      return p > 0 ? 1 - p : 0;
    case "rzero":
      return Math.min(p, 1 - p);
  }
}
