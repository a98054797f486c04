import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { getEnvironment, listEnvironments, type EnvironmentSummary } from "../store/queries/environments.js";
import { listRolloutPlaySummaries, type RolloutPlaySummary } from "../store/queries/episodes.js";
import type { MetricRecord } from "../store/queries/metrics.js";
import { listScheduledPlays } from "../store/queries/schedule.js";
import { batchScoredAt, regenerationOf, type ScheduleFields } from "./rolloutSchedule.js";
import { codeDiversity, type Diversity } from "./vendiScore.js";

export interface IterationMetricsOptions {
  /**
   * The diversity of the games this iteration designed, measured by the caller (e.g.
   * `regenerationDiversity(codes, backend.embed)` for the embedding kernel); null for "none".
   * Defaults to the code-similarity Vendi score of the iteration's valid environments (null when
   * the iteration designed none: a replay rollout is a gap, not a zero).
   */
  diversity?: Diversity | null;
}

const mean = (values: readonly number[]) => (values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length);
const wins = (returns: readonly number[]) => (returns.length === 0 ? null : returns.filter((value) => value > 0).length / returns.length);

/** Ten win-rate bins [0, 0.1), ..., [0.9, 1]. */
export function winRateHistogram(winRates: readonly number[]): number[] {
  const counts = new Array<number>(10).fill(0);
  for (const rate of winRates) counts[Math.min(9, Math.floor(rate * 10))]! += 1;
  return counts;
}

/** What one game did in a rollout: its unhinted plays there, and its hinted plays (played in its regeneration rollout). */
interface GameInRollout {
  winRate: number;
  hintWinRate: number | null;
  /** Hinted mean return - this rollout's unhinted mean return, floored at 0; 0 for a game without hinted plays (its hint failed). */
  regret: number;
}

/**
 * The rollout's aggregates: validity rate (valid attempts / attempts designed in it), mean regret,
 * mean win rate and hinted win rate, win-rate histogram, mean designer reward, novelty rate (novel /
 * judged), the diversity of the games designed (Vendi score, Vendi / n, the kernel), episodes,
 * tokens and time.
 *
 * A rollout is measured by what was played in it: a replay rollout (one that designs nothing and
 * plays the games of its regeneration again) has its own episodes, tokens, win rate (its unhinted
 * plays) and regret (each game's hinted mean return, from its regeneration rollout, less this
 * rollout's unhinted mean, floored at 0, as the designer reward's matched-timing regret). The
 * designer reward is that of the batch scored at the end of this rollout (after the proposer
 * delay): the mean over the batch's attempts, invalid ones at `reward.invalidReward` included.
 * A value that was not measured is null: a gap in a chart, not a zero.
 */
export function iterationMetrics(db: ReadonlyDb, runId: number, iteration: number, schedule: ScheduleFields, wallTimeMs: number, options: IterationMetricsOptions = {}): MetricRecord {
  const attempts = listEnvironments(db, { runId, iteration, orderBy: "id", limit: Number.MAX_SAFE_INTEGER });
  const judged = attempts.filter((env) => env.novelty !== null);
  const plays = listRolloutPlaySummaries(db, runId, iteration);
  const games = gamesInRollout(db, plays);
  const designing = regenerationOf(iteration, schedule) === iteration;
  // A rollout's cost is shared by the slots it designed, or by the games a replay played again.
  const perEnv = designing ? new Set(attempts.map((env) => env.slot)).size : new Set(plays.map((play) => play.environmentId)).size;
  const designerTokens = attempts.reduce((sum, env) => sum + (env.tokens ?? 0), 0);
  const tokens = designerTokens + plays.reduce((sum, play) => sum + (play.totalTokens ?? 0), 0);
  const scored = batchScoredAt(iteration, schedule);
  const diversity = options.diversity !== undefined ? options.diversity : codeDiversity(validCodes(db, attempts));
  return {
    attempts: attempts.length,
    validityRate: attempts.length === 0 ? null : attempts.filter((env) => env.valid).length / attempts.length,
    meanRegret: mean(games.map((game) => game.regret)),
    meanWinRate: mean(games.map((game) => game.winRate)),
    meanHintWinRate: mean(games.filter((game) => game.hintWinRate !== null).map((game) => game.hintWinRate!)),
    winRateHistogram: winRateHistogram(games.map((game) => game.winRate)),
    designerReward: scored === null ? null : batchDesignerReward(db, runId, scored),
    noveltyRate: judged.length === 0 ? null : judged.filter((env) => env.novelty === "novel").length / judged.length,
    vendiScore: diversity?.vendiScore ?? null,
    vendiPerN: diversity?.vendiPerN ?? null,
    diversity: diversity ? { kernel: diversity.kernel, games: diversity.n } : null,
    episodes: plays.length,
    stepTimeouts: plays.filter((play) => play.timedOut).length,
    tokens,
    tokensPerEnv: perEnv === 0 ? null : tokens / perEnv,
    wallTimeMs,
    timePerEnvMs: perEnv === 0 ? null : wallTimeMs / perEnv,
  };
}

/** Each game with unhinted plays in the rollout. */
function gamesInRollout(db: ReadonlyDb, plays: readonly RolloutPlaySummary[]): GameInRollout[] {
  const games: GameInRollout[] = [];
  for (const environmentId of new Set(plays.map((play) => play.environmentId))) {
    const unhinted = plays.filter((play) => play.environmentId === environmentId && !play.hinted).map((play) => play.return);
    if (unhinted.length === 0) continue;
    const hinted = listScheduledPlays(db, environmentId).filter((play) => play.hinted).map((play) => play.return);
    const hintedMean = mean(hinted);
    games.push({ winRate: wins(unhinted)!, hintWinRate: wins(hinted), regret: hintedMean === null ? 0 : Math.max(0, hintedMean - mean(unhinted)!) });
  }
  return games;
}

/** The mean designer reward of the attempts of the batch designed at `regeneration`; null when none has one. */
function batchDesignerReward(db: ReadonlyDb, runId: number, regeneration: number): number | null {
  const batch = listEnvironments(db, { runId, iteration: regeneration, orderBy: "id", limit: Number.MAX_SAFE_INTEGER });
  return mean(batch.filter((env) => env.designerReward !== null).map((env) => env.designerReward!));
}

function validCodes(db: ReadonlyDb, attempts: readonly EnvironmentSummary[]): string[] {
  return attempts.filter((env) => env.valid).map((env) => getEnvironment(db, env.id)?.code ?? null).filter((code): code is string => code !== null);
}
