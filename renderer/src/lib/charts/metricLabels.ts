/** Known loop metrics, in display order, with readable names. Unknown names are shown as they are. */
export const metricLabels: Record<string, string> = {
  validityRate: "Validity rate",
  meanRegret: "Mean regret",
  meanWinRate: "Mean win rate",
  meanDesignerReward: "Designer reward",
  noveltyRate: "Novelty rate",
  tokensPerEnv: "Tokens per environment",
  secondsPerEnv: "Seconds per environment",
  wallSeconds: "Wall time (s)",
};

export const preferredMetrics = Object.keys(metricLabels);

export function metricLabel(name: string): string {
  return metricLabels[name] ?? name;
}

/** One colour per series, stable by position. */
export const seriesColors = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948", "#9c755f"];
