/** Known loop metrics, in display order, with readable names. Unknown names are shown as they are. */
export const metricLabels: Record<string, string> = {
  validityRate: "Validity rate",
  meanRegret: "Mean regret",
  meanWinRate: "Mean win rate",
  meanHintWinRate: "Mean hinted win rate",
  designerReward: "Designer reward",
  noveltyRate: "Novelty rate",
  vendiScore: "Diversity (Vendi score)",
  vendiPerN: "Diversity (Vendi / n)",
  tokensPerEnv: "Tokens per environment",
  timePerEnvMs: "Time per environment",
  wallTimeMs: "Iteration wall time",
  regeneration: "New games or replayed",
};

export const preferredMetrics = Object.keys(metricLabels);

/** The method's core curves (every kind of run measures them): a run page shows their tiles from the first iteration, empty ones saying why. */
export const coreMetrics = ["validityRate", "meanRegret", "meanWinRate"];

/** A metric's title in words: the known label, else its camelCase or snake_case name spelled out ("meanTurns" -> "Mean turns"). */
export function metricLabel(name: string): string {
  return metricLabels[name] ?? humanize(name);
}

function humanize(name: string): string {
  const words = name
    .replace(/[_-]+/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .trim()
    .split(/\s+/)
    .map((word, i) => (/^[A-Z0-9]+$/.test(word) && word.length > 1 ? word : i === 0 ? word.charAt(0).toUpperCase() + word.slice(1).toLowerCase() : word.toLowerCase()));
  return words.join(" ") || name;
}

/** One colour per series, stable by position. */
export const seriesColors = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948", "#9c755f"];

/** The colour of the series at `index` (runs in a comparison keep theirs in every chart). */
export function seriesColor(index: number): string {
  return seriesColors[index % seriesColors.length] ?? "#4e79a7";
}
