import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { getEnvironment, listEnvironments, type EnvironmentSummary } from "../store/queries/environments.js";
import { listEpisodes } from "../store/queries/episodes.js";
import type { MetricRecord } from "../store/queries/metrics.js";
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

const mean = (values: number[]) => (values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length);

/** Ten win-rate bins [0, 0.1), ..., [0.9, 1]. */
export function winRateHistogram(winRates: readonly number[]): number[] {
  const counts = new Array<number>(10).fill(0);
  for (const rate of winRates) counts[Math.min(9, Math.floor(rate * 10))]! += 1;
  return counts;
}

/**
 * The iteration's aggregates: validity rate (valid attempts / attempts), mean regret, mean win rate,
 * win-rate histogram, mean designer reward, novelty rate (novel / judged), the diversity of the
 * games designed (Vendi score, Vendi / n, the kernel), tokens and time.
 * A value that was not measured is null: a gap in a chart, not a zero.
 */
export function iterationMetrics(db: ReadonlyDb, runId: number, iteration: number, wallTimeMs: number, options: IterationMetricsOptions = {}): MetricRecord {
  const attempts = listEnvironments(db, { runId, iteration, orderBy: "id", limit: Number.MAX_SAFE_INTEGER });
  const played = attempts.filter((env) => env.valid && env.winRate !== null);
  const judged = attempts.filter((env) => env.novelty !== null);
  const slots = new Set(attempts.map((env) => env.slot));
  let episodeTokens = 0;
  let episodes = 0;
  let stepTimeouts = 0;
  for (const env of attempts.filter((e) => e.valid)) {
    for (const episode of listEpisodes(db, env.id)) {
      episodes++;
      episodeTokens += episode.totalTokens ?? 0;
      if (episode.timedOut) stepTimeouts++;
    }
  }
  const designerTokens = attempts.reduce((sum, env) => sum + (env.tokens ?? 0), 0);
  const tokens = designerTokens + episodeTokens;
  const diversity = options.diversity !== undefined ? options.diversity : codeDiversity(validCodes(db, attempts));
  return {
    attempts: attempts.length,
    validityRate: attempts.length === 0 ? null : attempts.filter((env) => env.valid).length / attempts.length,
    meanRegret: mean(played.map((env) => env.regret ?? 0)),
    meanWinRate: mean(played.map((env) => env.winRate!)),
    meanHintWinRate: mean(played.filter((env) => env.hintWinRate !== null).map((env) => env.hintWinRate!)),
    winRateHistogram: winRateHistogram(played.map((env) => env.winRate!)),
    designerReward: mean(attempts.filter((env) => env.designerReward !== null).map((env) => env.designerReward!)),
    noveltyRate: judged.length === 0 ? null : judged.filter((env) => env.novelty === "novel").length / judged.length,
    vendiScore: diversity?.vendiScore ?? null,
    vendiPerN: diversity?.vendiPerN ?? null,
    diversity: diversity ? { kernel: diversity.kernel, games: diversity.n } : null,
    episodes,
    stepTimeouts,
    tokens,
    tokensPerEnv: slots.size === 0 ? null : tokens / slots.size,
    wallTimeMs,
    timePerEnvMs: slots.size === 0 ? null : wallTimeMs / slots.size,
  };
}

function validCodes(db: ReadonlyDb, attempts: readonly EnvironmentSummary[]): string[] {
  return attempts.filter((env) => env.valid).map((env) => getEnvironment(db, env.id)?.code ?? null).filter((code): code is string => code !== null);
}
