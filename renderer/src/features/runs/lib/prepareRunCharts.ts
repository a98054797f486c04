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

/** The designer kind of a stored run config ("llm" when the config does not say). */
export function designerKindOf(config: Record<string, unknown> | undefined): string {
  const designer = config?.designer;
  const kind = designer !== null && typeof designer === "object" ? (designer as { kind?: unknown }).kind : undefined;
  return typeof kind === "string" ? kind : "llm";
}

export function prepareRunCharts(names: readonly string[], designerKind: string): RunChartsPlan {
  if (designerKind === "llm") return { shown: [...names], hiddenNote: null };
  const hidden = names.filter((name) => designerMetrics.includes(name));
  const shown = names.filter((name) => !designerMetrics.includes(name));
  const pool = designerKind === "fixed" ? "a fixed-pool run draws its games from an environment set" : "a library run draws its games from an environment library";
  const hiddenNote = hidden.length === 0 ? null : `Not charted: ${hidden.map((name) => metricLabel(name).toLowerCase()).join(", ")}: ${pool}, so no model designs and nothing scores a designer.`;
  return { shown, hiddenNote };
}
