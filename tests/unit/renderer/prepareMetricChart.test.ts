import { describe, expect, it } from "vitest";
import { metricLabel } from "../../../renderer/src/lib/charts/metricLabels.js";
import { isRateMetric, prepareMetricChart } from "../../../renderer/src/lib/charts/prepareMetricChart.js";
import { prepareRunCharts, storedHintPlays } from "../../../renderer/src/features/runs/lib/prepareRunCharts.js";
import { storedDesignerKind } from "../../../shared/storedDesignerKind.js";

const series = [{ key: "run1", label: "run 1" }];

describe("prepareMetricChart", () => {
  it("puts rates on a 0-1 axis and fits other metrics to the data", () => {
    const rows = [{ iteration: 0, run1: 0.2 }, { iteration: 1, run1: 0.5 }];
    expect(prepareMetricChart("validityRate", rows, series)).toMatchObject({ title: "Validity rate", domain: [0, 1], rate: true, single: null });
    expect(prepareMetricChart("meanRegret", rows, series)).toMatchObject({ domain: [0.2, 0.5], rate: false });
    // A "rate" outside [0, 1] is not cut off.
    expect(prepareMetricChart("noveltyRate", [{ iteration: 0, run1: 2 }, { iteration: 1, run1: 3 }], series).domain).toEqual([2, 3]);
    expect(isRateMetric("clippedFraction")).toBe(true);
    expect(isRateMetric("rateLimitMs")).toBe(false);
  });

  it("shows a one-iteration run as its values, rates as percentages, gaps as a dash", () => {
    const two = [...series, { key: "run2", label: "run 2" }];
    expect(prepareMetricChart("validityRate", [{ iteration: 0, run1: 0, run2: null }], two).single).toEqual([
      { key: "run1", label: "run 1", value: 0, text: "0.0%" },
      { key: "run2", label: "run 2", value: null, text: "–" },
    ]);
    expect(prepareMetricChart("tokensPerEnv", [{ iteration: 0, run1: 812.4 }], series).single?.[0]?.text).toBe("812");
    expect(prepareMetricChart("meanRegret", [{ iteration: 0, run1: 0.1234 }], series).single?.[0]?.text).toBe("0.123");
  });

  it("titles every metric in words", () => {
    expect(metricLabel("meanRegret")).toBe("Mean regret");
    expect(metricLabel("meanTurnsPerEpisode")).toBe("Mean turns per episode");
    expect(metricLabel("vendi_score")).toBe("Vendi score");
    expect(metricLabel("meanKLDivergence")).toBe("Mean KL divergence");
  });
});

describe("prepareRunCharts", () => {
  it("leaves the designer's measures out of a run without a designer, and says which and why", () => {
    const names = ["validityRate", "meanRegret", "designerReward", "designerMaskedRate", "designerRewardsScored", "episodes", "regeneration"];
    const fixed = prepareRunCharts(names, storedDesignerKind({ designer: { kind: "fixed", set: "examples" } }));
    expect(fixed.shown).toEqual(["validityRate", "meanRegret", "episodes", "regeneration"]);
    expect(fixed.hiddenNote).toBe("Not charted: designer reward, designer masked rate, designer rewards scored: a fixed-pool run draws its games from an environment set, so no model designs and nothing scores a designer.");
    expect(prepareRunCharts(names, storedDesignerKind({}))).toEqual({ shown: names, hiddenNote: null });
    expect(prepareRunCharts(["validityRate"], "fixed").hiddenNote).toBeNull();
  });

  it("leaves the hinted measures out of a run with no hinted plays (hintPlays 0), and keeps them when it has some or does not say", () => {
    const names = ["validityRate", "meanRegret", "meanWinRate", "meanHintWinRate", "designerReward"];
    const config = { designer: { kind: "fixed", set: "story-words" }, hintPlays: 0 };
    const plan = prepareRunCharts(names, storedDesignerKind(config), storedHintPlays(config));
    expect(plan.shown).toEqual(["validityRate", "meanWinRate"]);
    expect(plan.hiddenNote).toBe(
      "Not charted: designer reward: a fixed-pool run draws its games from an environment set, so no model designs and nothing scores a designer. Not charted: mean regret, mean hinted win rate: the run plays no hinted games (hintPlays 0), so regret is 0 by definition and no hinted win rate is measured.",
    );
    expect(prepareRunCharts(names, "llm", storedHintPlays({ hintPlays: 8 }))).toEqual({ shown: names, hiddenNote: null });
    expect(prepareRunCharts(names, "llm", storedHintPlays({}))).toEqual({ shown: names, hiddenNote: null });
  });
});
