/** What a batch of plays says about one environment (SPADE-NOTES "Hints and regret"). */
export interface EnvStatistics {
  /** Unhinted plays (the canary one of them, as the reference counts it). */
  plays: number;
  hintPlays: number;
  /** Fraction of unhinted plays with return > 0; null without plays. */
  winRate: number | null;
  hintWinRate: number | null;
  meanReturn: number | null;
  hintMeanReturn: number | null;
  /** max(0, hinted mean return - unhinted mean return); null unless both kinds were played. */
  regret: number | null;
}
