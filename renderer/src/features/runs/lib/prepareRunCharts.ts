// Which of a run's metrics get a chart: a metric that cannot apply to the run (the designer's
// measures on a run without a designer) is left out, and the page says which and why, rather than
// showing empty or all-zero tiles.
import { metricLabel } from "../../../lib/charts/metricLabels.js";

/** Measures of the designer's own games and rewards: nothing to measure when no model designs. */
export const designerMetrics = ["designerReward", "designerRewardsScored", "designerMaskedRate", "designerRewardScale", "learningPotentialGap", "noveltyRate"];

export interface RunChartsPlan {
  /** The metrics to chart, in order. */
  shown: string[];
  /** A sentence naming what is left out and why, or null. */
  hiddenNote: string | null;
}

/** Why a run of this designer kind ("fixed", "library") has no designer measures: the end of a sentence. */
export function noDesignerReason(designerKind: string): string {
  const pool = designerKind === "fixed" ? "a fixed-pool run draws its games from an environment set" : "a library run draws its games from an environment library";
  return `${pool}, so no model designs and nothing scores a designer.`;
}

/** Metric names as a lower-case list for a sentence. */
export function metricList(names: readonly string[]): string {
  return names.map((name) => metricLabel(name).toLowerCase()).join(", ");
}

export function prepareRunCharts(names: readonly string[], designerKind: string): RunChartsPlan {
  if (designerKind === "llm") return { shown: [...names], hiddenNote: null };
  const hidden = names.filter((name) => designerMetrics.includes(name));
  const shown = names.filter((name) => !designerMetrics.includes(name));
  const hiddenNote = hidden.length === 0 ? null : `Not charted: ${metricList(hidden)}: ${noDesignerReason(designerKind)}`;
  return { shown, hiddenNote };
}
