// Which of a run's metrics get a chart: a metric that cannot apply to the run (the designer's
// measures on a run without a designer, the hinted measures on a run with no hinted plays) is left
// out, and the page says which and why, rather than showing empty or all-zero tiles.
import { metricLabel } from "../../../lib/charts/metricLabels.js";

/** Measures of the designer's own games and rewards: nothing to measure when no model designs. */
export const designerMetrics = ["designerReward", "designerRewardsScored", "designerMaskedRate", "designerRewardScale", "learningPotentialGap", "noveltyRate"];

/** Measures of hinted play: with no hinted plays (`hintPlays` 0) regret is 0 by the designer reward's rule and the hinted win rate has nothing to count. */
export const hintMetrics = ["meanHintWinRate", "meanRegret"];

/** The stored config's `hintPlays`, or null when it does not say (a run stored by an older version). */
export function storedHintPlays(config: unknown): number | null {
  const value = config !== null && typeof config === "object" ? (config as { hintPlays?: unknown }).hintPlays : undefined;
  return typeof value === "number" ? value : null;
}

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

/**
 * The charts of a run: every metric in `names` but the designer's when no model designs
 * (`designerKind` "fixed" or "library") and the hinted ones when the run plays no hinted games
 * (`hintPlays` 0; null, unknown, leaves them in), with a note naming each left-out group and why.
 */
export function prepareRunCharts(names: readonly string[], designerKind: string, hintPlays: number | null = null): RunChartsPlan {
  const groups = [
    { hidden: designerKind === "llm" ? [] : names.filter((name) => designerMetrics.includes(name)), reason: () => noDesignerReason(designerKind) },
    { hidden: hintPlays === 0 ? names.filter((name) => hintMetrics.includes(name)) : [], reason: () => "the run plays no hinted games (hintPlays 0), so regret is 0 by definition and no hinted win rate is measured." },
  ].filter((group) => group.hidden.length > 0);
  const left = new Set(groups.flatMap((group) => group.hidden));
  const hiddenNote = groups.length === 0 ? null : groups.map((group) => `Not charted: ${metricList(group.hidden)}: ${group.reason()}`).join(" ");
  return { shown: names.filter((name) => !left.has(name)), hiddenNote };
}
