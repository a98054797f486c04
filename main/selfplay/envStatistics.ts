import type { EnvStatistics } from "../../shared/envStatistics.js";

export type { EnvStatistics };

export function computeEnvStatistics(plays: readonly { hinted: boolean; return: number }[]): EnvStatistics {
  const unhinted = plays.filter((play) => !play.hinted).map((play) => play.return);
  const hinted = plays.filter((play) => play.hinted).map((play) => play.return);
  const meanReturn = mean(unhinted);
  const hintMeanReturn = mean(hinted);
  return {
    plays: unhinted.length,
    hintPlays: hinted.length,
    winRate: winRate(unhinted),
    hintWinRate: winRate(hinted),
    meanReturn,
    hintMeanReturn,
    regret: meanReturn === null || hintMeanReturn === null ? null : Math.max(0, hintMeanReturn - meanReturn),
  };
}

function mean(values: number[]): number | null {
  return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
}

function winRate(returns: number[]): number | null {
  return returns.length === 0 ? null : returns.filter((value) => value > 0).length / returns.length;
}
