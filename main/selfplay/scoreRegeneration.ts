import type { RunConfig } from "../../shared/runConfig.js";
import type { WritableDb } from "../store/DatabaseHandle.js";
import { getEnvStats, upsertEnvStats } from "../store/queries/envStats.js";
import { findAttempt, type Environment } from "../store/queries/environments.js";
import { addToMemory, evictOldestUnpinned } from "../store/queries/memory.js";
import { listScheduledPlays, setDesignerAdvantage, type ScheduledPlay } from "../store/queries/schedule.js";
import { listRolloutPlays } from "../store/queries/trainingBatch.js";
import { designerRewardScale, LearningPotentialTracker, scoreBatch, type ScoredGame } from "./designerReward.js";
import { computeEnvStatistics } from "./envStatistics.js";
import { regenerationInterval, regenerationOf, rewardDueAt, rewardWindow } from "./rolloutSchedule.js";

/** The valid environment of a slot of a batch, or null when every attempt failed. */
export function validAttempt(db: WritableDb, runId: number, regeneration: number, slot: number, attempts: number): Environment | null {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const env = findAttempt(db, runId, regeneration, slot, attempt);
    if (env === null) return null;
    if (env.valid) return env;
  }
  return null;
}

/** The valid games of the batch generated at `regeneration`, in slot order. */
export function batchGames(db: WritableDb, runId: number, regeneration: number, config: RunConfig): Environment[] {
  const attempts = config.designer.kind === "fixed" ? 1 : config.designer.attempts;
  const games: Environment[] = [];
  for (let slot = 0; slot < config.envsPerIteration; slot++) {
    const env = validAttempt(db, runId, regeneration, slot, attempts);
    if (env) games.push(env);
  }
  return games;
}

function rolloutOf(play: ScheduledPlay, regeneration: number, config: RunConfig): number {
  // Plays stored before episodes recorded their rollout were numbered with a fixed `plays`.
  return play.rollout ?? regeneration + (config.plays === null ? 0 : Math.floor(play.playIndex / config.plays));
}

/**
 * A game's plays within its reward window: unhinted returns per rollout, hinted returns, time-outs.
 * Plays the infrastructure failed are not accumulated (the reference drops a FAILED trajectory
 * before `_ACCUMULATED_GAME_REWARDS` and the hint means, `spade_rollout.py`, `orchestrator.py`
 * `play_games_async`): they count in no mean, win rate or plateau. The time-out test is the
 * reference's `_step_timeout_games`, cleared at every collect and stamped on the regeneration
 * rollout's designer samples: a play of the regeneration rollout (hinted or not) that hit the deadline.
 */
function windowOf(database: WritableDb, env: Environment, regeneration: number, config: RunConfig, window: number) {
  const plays = listScheduledPlays(database, env.id);
  const inWindow = plays.filter((play) => !play.failed && (play.hinted || rolloutOf(play, regeneration, config) < regeneration + window));
  const returnsByRollout = Array.from({ length: window }, (_, offset) =>
    inWindow.filter((play) => !play.hinted && rolloutOf(play, regeneration, config) === regeneration + offset).map((play) => play.return),
  );
  const timeouts = plays.filter((play) => play.timedOut && (play.hinted || rolloutOf(play, regeneration, config) === regeneration)).length;
  return { inWindow, returnsByRollout, hinted: inWindow.filter((play) => play.hinted).map((play) => play.return), timeouts };
}

/** Statistics of a game so far, without a designer reward (shown while its batch waits for the delay). */
export function storeInterimStats(database: WritableDb, runId: number, iteration: number, config: RunConfig): void {
  const regeneration = regenerationOf(iteration, config);
  const window = rewardWindow(regeneration, config);
  if (iteration >= regeneration + window) return; // scored already: the window's statistics stay
  for (const env of batchGames(database, runId, regeneration, config)) {
    const { inWindow, timeouts } = windowOf(database, env, regeneration, config, window);
    upsertEnvStats(database, { environmentId: env.id, ...computeEnvStatistics(inWindow), designerReward: null, rewardKind: config.reward.kind, stepTimeouts: timeouts });
  }
}

/**
 * The learning-potential trackers after the batches before `regeneration`: each scored batch
 * updates a skill's averages once with the mean return of that skill's games over their window.
 */
export function trackersBefore(database: WritableDb, runId: number, regeneration: number, config: RunConfig): Map<string, LearningPotentialTracker> {
  const trackers = new Map<string, LearningPotentialTracker>();
  const interval = regenerationInterval(config);
  for (let earlier = 0; earlier < regeneration; earlier += interval) {
    const sums = new Map<string, { sum: number; count: number }>();
    for (const env of batchGames(database, runId, earlier, config)) {
      const stats = getEnvStats(database, env.id);
      if (!stats || stats.meanReturn === null || stats.plays === 0) continue;
      const skill = env.skill ?? "";
      const total = sums.get(skill) ?? { sum: 0, count: 0 };
      total.sum += stats.meanReturn * stats.plays;
      total.count += stats.plays;
      sums.set(skill, total);
    }
    for (const [skill, { sum, count }] of sums) {
      let tracker = trackers.get(skill);
      if (!tracker) trackers.set(skill, (tracker = new LearningPotentialTracker(config.reward.lpFastGamma, config.reward.lpSlowGamma)));
      tracker.update(sum / count);
    }
  }
  return trackers;
}

/** The fraction of the regeneration rollout's unhinted plays with return > 0; null when it has none. */
export function regenerationWinRate(returnsByRollout: readonly (readonly number[])[]): number | null {
  const first = returnsByRollout[0] ?? [];
  return first.length === 0 ? null : first.filter((value) => value > 0).length / first.length;
}

export interface BatchScore {
  environmentId: number;
  winRate: number | null;
  regret: number | null;
  designerReward: number | null;
  advantage: number | null;
  masked: boolean;
}

/**
 * Scores the batch generated at `regeneration` once its proposer delay has passed: the window's
 * statistics, the delayed designer reward and advantage (none for a fixed pool), and every game
 * into memory with the regeneration rollout's win rate and its signed matched-timing regret. Call inside the
 * transaction that completes the iteration. Returns the scores and the learning-potential gap.
 */
export function scoreRegeneration(database: WritableDb, runId: number, regeneration: number, config: RunConfig, novel: (env: Environment) => boolean): { scores: BatchScore[]; learningPotentialGap: number | null; scale: number } {
  const window = rewardWindow(regeneration, config);
  const games = batchGames(database, runId, regeneration, config);
  const windows = games.map((env) => windowOf(database, env, regeneration, config, window));
  const scoredGames: ScoredGame[] = games.map((env, i) => ({ skill: env.skill ?? "", returnsByRollout: windows[i]!.returnsByRollout, hintedReturns: windows[i]!.hinted, timedOut: windows[i]!.timeouts > 0 }));
  const trackers = trackersBefore(database, runId, regeneration, config);
  const designed = config.designer.kind === "llm";
  const scale = rewardScale(database, runId, regeneration, config, games.length);
  const rewards = designed ? scoreBatch(scoredGames, { ...config.reward, scale }, trackers) : null;
  const scores: BatchScore[] = [];
  games.forEach((env, i) => {
    const stats = computeEnvStatistics(windows[i]!.inWindow);
    const reward = rewards?.[i] ?? null;
    const regret = reward ? Math.max(0, reward.regret) : stats.regret;
    upsertEnvStats(database, { environmentId: env.id, ...stats, regret, designerReward: reward?.reward ?? null, rewardKind: config.reward.kind, stepTimeouts: windows[i]!.timeouts });
    setDesignerAdvantage(database, env.id, reward?.advantage ?? null, reward?.masked ?? false);
    // Memory's win rate is the regeneration rollout's (the plays the reference has when it stores the game), not the window's.
    const winRate = regenerationWinRate(windows[i]!.returnsByRollout);
    if (winRate !== null && novel(env)) {
      const signedRegret = reward?.regret ?? (stats.hintMeanReturn !== null && stats.meanReturn !== null ? stats.hintMeanReturn - stats.meanReturn : 0);
      addToMemory(database, { environmentId: env.id, runId, skill: env.skill, code: env.code, winRate, regret: signedRegret, iteration: regeneration });
    }
    scores.push({ environmentId: env.id, winRate: stats.winRate, regret, designerReward: reward?.reward ?? null, advantage: reward?.advantage ?? null, masked: reward?.masked ?? false });
  });
  evictOldestUnpinned(database, runId, config.memory.capacity);
  const gaps = [...new Set(scoredGames.map((game) => game.skill))].map((skill) => trackers.get(skill)?.gap()).filter((gap): gap is number => gap !== undefined);
  return { scores, learningPotentialGap: designed && gaps.length > 0 ? gaps.reduce((a, b) => a + b, 0) / gaps.length : null, scale };
}

/**
 * The designer advantage's multiplier: `reward.scale`, or with "auto" the reference's per-step
 * scale from the agent samples of the rollout that scores the batch (its plays the infrastructure
 * did not fail, hinted ones aside) and the batch's designer samples (its valid games).
 */
function rewardScale(database: WritableDb, runId: number, regeneration: number, config: RunConfig, designerSamples: number): number {
  if (config.reward.scale !== "auto") return config.reward.scale;
  const due = rewardDueAt(regeneration, config);
  const agentSamples = listRolloutPlays(database, runId, due, due).filter((play) => !play.hinted && (play.error === null || play.scoredStepError)).length;
  return designerRewardScale(agentSamples, designerSamples, regenerationInterval(config));
}
