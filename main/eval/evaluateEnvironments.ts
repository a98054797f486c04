import type { LlmBackend } from "../llm/LlmBackend.js";
import { runPlays } from "../rollout/runPlays.js";
import type { EnvSession } from "../sandbox/EnvSession.js";
import { deriveSeed } from "../util/seededRandom.js";
import { scoreInterval } from "./scoreInterval.js";
import type { EnvironmentEvalItem, EnvironmentEvalReport } from "./EnvironmentEvalReport.js";
import type { EnvironmentSuiteFile } from "./readEnvironmentSuite.js";

export interface EvaluateEnvironmentsOptions {
  suite: string;
  /** Opens a fresh sandboxed instance of an environment's code. */
  open: (code: string) => Promise<EnvSession>;
  /** Unhinted plays per environment. Defaults to 4. */
  playsPerEnvironment?: number;
  /** Defaults to 25. */
  maxTurns?: number;
  /** Defaults to 0.6 (SPADE's rollout temperature). */
  temperature?: number;
  /** Defaults to 512. */
  maxTokens?: number;
  /** Play seeds derive from it and the file name. Defaults to 0. */
  seed?: number;
  signal?: AbortSignal;
  /** Called after each environment. Defaults to none. */
  onProgress?: (done: number, total: number) => void;
}

/** Plays each held-out environment without hints and reports mean return and win rate. */
export async function evaluateEnvironments(backend: LlmBackend, files: readonly EnvironmentSuiteFile[], options: EvaluateEnvironmentsOptions): Promise<EnvironmentEvalReport> {
  const plays = options.playsPerEnvironment ?? 4;
  const items: EnvironmentEvalItem[] = [];
  const returns: number[] = [];
  for (const [index, { file, code }] of files.entries()) {
    let className: string | null = null;
    const outcome = await runPlays({
      open: async () => {
        const session = await options.open(code);
        className = session.className;
        return session;
      },
      backend,
      specs: Array.from({ length: plays }, (_, playIndex) => ({ hinted: false, playIndex, canary: false, seed: deriveSeed(options.seed ?? 0, "eval-env", file, playIndex) })),
      hint: null,
      maxTurns: options.maxTurns ?? 25,
      sampling: { temperature: options.temperature ?? 0.6, maxTokens: options.maxTokens ?? 512 },
      signal: options.signal,
    });
    const episodeReturns = outcome.episodes.map((episode) => episode.return);
    returns.push(...episodeReturns);
    items.push({
      index,
      file,
      className,
      plays: episodeReturns.length,
      meanReturn: mean(episodeReturns),
      winRate: mean(episodeReturns.map((value) => (value > 0 ? 1 : 0))),
      errors: outcome.episodes.filter((episode) => episode.error !== null).length,
    });
    options.onProgress?.(index + 1, files.length);
  }
  return {
    suite: options.suite,
    kind: "environments",
    n: items.length,
    plays: returns.length,
    meanReturn: mean(returns),
    winRate: mean(returns.map((value) => (value > 0 ? 1 : 0))),
    interval: scoreInterval(items.map((item) => item.meanReturn), { seed: options.seed ?? 0 }),
    items,
  };
}

function mean(values: number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}
