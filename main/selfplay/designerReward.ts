import type { RewardConfig } from "../../shared/runConfig.js";

const clip = (value: number, low: number, high: number) => Math.max(low, Math.min(high, value));
const mean = (values: readonly number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
const populationVariance = (values: readonly number[]) => {
  const m = mean(values);
  return values.length === 0 ? 0 : values.reduce((sum, v) => sum + (v - m) ** 2, 0) / values.length;
};

/** 1 on the plateau, falling linearly to 0 over `ramp` on either side. */
export function plateauScore(value: number, [low, high]: [number, number], ramp: number): number {
  if (value >= low && value <= high) return 1;
  const distance = value < low ? low - value : value - high;
  return ramp <= 0 ? 0 : clip(1 - distance / ramp, 0, 1);
}

/**
 * The reference's learning-potential tracker of one skill: a fast and a slow exponential moving
 * average of the skill's mean return, updated once per scored batch. The slow one is the baseline
 * a game's mean is compared with; the fast-slow gap is only monitored.
 */
export class LearningPotentialTracker {
  fast: number | null = null;
  slow: number | null = null;

  constructor(
    readonly fastGamma: number,
    readonly slowGamma: number,
  ) {}

  update(value: number): void {
    if (this.fast === null || this.slow === null) {
      this.fast = this.slow = value;
      return;
    }
    this.fast = (1 - this.fastGamma) * this.fast + this.fastGamma * value;
    this.slow = (1 - this.slowGamma) * this.slow + this.slowGamma * value;
  }

  /** The slow average, 0 before the first update. */
  baseline(): number {
    return this.slow ?? 0;
  }

  /** |fast - slow| / (2 (fastGamma - slowGamma)): the monitoring metric. */
  gap(): number {
    if (this.fast === null || this.slow === null) return 0;
    return Math.abs(this.fast - this.slow) / ((this.fastGamma - this.slowGamma) * 2);
  }
}

/** What the delayed designer reward reads of one game of a batch. */
export interface ScoredGame {
  skill: string;
  /** Unhinted returns of each rollout of the window, oldest first (the canary included). */
  returnsByRollout: readonly (readonly number[])[];
  /** Returns of the hinted plays (played once, in the regeneration rollout). */
  hintedReturns: readonly number[];
  /** A play hit the step deadline. */
  timedOut: boolean;
}

export interface GameReward {
  /** The raw reward (before centring), or null when it is masked out of the designer's update. */
  reward: number;
  masked: boolean;
  /** (reward - mean reward of its skill's unmasked games) x scale; null when masked. */
  advantage: number | null;
  /** Matched-timing regret: hinted mean - the first rollout's unhinted mean (signed); 0 for a game without hinted plays (its hint failed), as the reference. */
  regret: number;
  /** Mean raw return over the window (what the plateau and frontier terms read). */
  windowMean: number;
}

/**
 * Weighted least-squares slope of the per-rollout mean return (weights sqrt(plays)), as fitted
 * end-minus-start: the reference's micro learning potential.
 */
export function microLearningPotential(returnsByRollout: readonly (readonly number[])[]): number {
  const steps = returnsByRollout.length;
  if (steps < 2) return 0;
  const xs = returnsByRollout.map((_, i) => i);
  const ys = returnsByRollout.map((returns) => mean(returns));
  const ws = returnsByRollout.map((returns) => Math.sqrt(Math.max(returns.length, 1)));
  // numpy.polyfit(x, y, 1, w) minimises sum((w (y - fit))^2): weights enter squared.
  const w2 = ws.map((w) => w * w);
  const sw = w2.reduce((a, b) => a + b, 0);
  const mx = xs.reduce((sum, x, i) => sum + w2[i]! * x, 0) / sw;
  const my = ys.reduce((sum, y, i) => sum + w2[i]! * y, 0) / sw;
  const sxy = xs.reduce((sum, x, i) => sum + w2[i]! * (x - mx) * (ys[i]! - my), 0);
  const sxx = xs.reduce((sum, x, i) => sum + w2[i]! * (x - mx) ** 2, 0);
  return sxx === 0 ? 0 : (sxy / sxx) * (steps - 1);
}

/** The reference's variance add-on: exp(-(var - 0.25)^2 / 0.02) on the population variance of the returns. */
export function varianceBonus(returns: readonly number[]): number {
  return Math.exp(-((populationVariance(returns) - 0.25) ** 2) / (2 * 0.01));
}

function rawReward(game: ScoredGame, config: RewardConfig, baseline: number): { reward: number; maskable: boolean; regret: number; windowMean: number } {
  const window = game.returnsByRollout.flat();
  const windowMean = mean(window);
  // A game whose hint could not be written has no hinted plays: the reference counts its regret as 0.
  const hinted = game.hintedReturns.length > 0;
  const regret = hinted ? mean(game.hintedReturns) - mean(game.returnsByRollout[0] ?? []) : 0;
  const winRate = window.length === 0 ? 0 : window.filter((r) => r > 0).length / window.length;
  const regretTerm = clip(regret / config.regretScale, 0, 1);
  const blend = (regretWeight: number, plateauWeight: number) =>
    regretWeight * regretTerm +
    plateauWeight * plateauScore(windowMean, config.plateau, config.ramp) +
    config.microLpWeight * (microLearningPotential(game.returnsByRollout) / config.microLpScale) -
    config.frontierWeight * ((windowMean - 0.5) ** 2 / config.frontierScale);
  const result = (reward: number, maskable: boolean) => ({ reward, maskable, regret, windowMean });
  switch (config.kind) {
    case "blend":
      if (game.timedOut && config.timeoutInBlend) return result(config.timeoutPenalty, false);
      return result(blend(config.regretWeight, config.plateauWeight), true);
    case "solveRate":
      return result(blend(0, 1), true);
    case "regret":
      // The reference's `regret_based`: hinted mean - the unhinted mean over the whole window,
      // floored at 0, not divided by regretScale; a step time-out replaces it with the penalty.
      if (game.timedOut) return result(config.timeoutPenalty, false);
      return result(hinted ? Math.max(0, mean(game.hintedReturns) - windowMean) : 0, false);
    case "learningPotential":
      return result(window.length === 0 ? 0 : Math.abs(windowMean - baseline), false);
    case "variance":
      return result((window.length === 0 ? 0 : Math.abs(windowMean - baseline)) + (window.length > 1 ? varianceBonus(window) : 0), false);
    case "azr":
      return result(winRate > 0 ? 1 - winRate : 0, false);
    case "rzero":
      return result(Math.min(winRate, 1 - winRate), false);
  }
}

/** The cap of the reference's automatic designer reward scale. */
export const maxDesignerRewardScale = 50;

/**
 * The reference's automatic designer reward scale of one step: (agent samples / designer samples)
 * x regeneration interval, capped at 50, so the designer's few samples weigh as much as the agent's
 * many over a regeneration's rollouts; 1 when either count is 0.
 */
export function designerRewardScale(agentSamples: number, designerSamples: number, regenerationInterval: number): number {
  if (agentSamples <= 0 || designerSamples <= 0) return 1;
  return Math.min((agentSamples / designerSamples) * regenerationInterval, maxDesignerRewardScale);
}

/**
 * The delayed designer reward of one regeneration batch, as the reference computes it: each game's
 * raw reward from its window of plays, negative blends masked, then centred on the mean of its
 * skill's unmasked games and multiplied by `config.scale` for the designer's advantage. For the
 * learning-potential kinds the skill trackers are first updated with the batch's mean return per
 * skill (so `trackers` must hold the state after the previous batches).
 */
export function scoreBatch(games: readonly ScoredGame[], config: RewardConfig & { scale: number }, trackers: Map<string, LearningPotentialTracker>): GameReward[] {
  const tracker = (skill: string) => {
    let found = trackers.get(skill);
    if (!found) trackers.set(skill, (found = new LearningPotentialTracker(config.lpFastGamma, config.lpSlowGamma)));
    return found;
  };
  const perSkill = new Map<string, number[]>();
  for (const game of games) perSkill.set(game.skill, [...(perSkill.get(game.skill) ?? []), ...game.returnsByRollout.flat()]);
  for (const [skill, returns] of perSkill) if (returns.length > 0) tracker(skill).update(mean(returns));
  const raw = games.map((game) => {
    const scored = rawReward(game, config, tracker(game.skill).baseline());
    return { ...scored, masked: scored.maskable && scored.reward < 0 };
  });
  const skillMean = new Map<string, number>();
  for (const skill of new Set(games.map((game) => game.skill))) {
    skillMean.set(skill, mean(raw.filter((r, i) => !r.masked && games[i]!.skill === skill).map((r) => r.reward)));
  }
  return raw.map((r, i) => ({
    reward: r.reward,
    masked: r.masked,
    advantage: r.masked ? null : (r.reward - skillMean.get(games[i]!.skill)!) * config.scale,
    regret: r.regret,
    windowMean: r.windowMean,
  }));
}
