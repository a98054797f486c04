import { describe, expect, it } from "vitest";
import { coreMetrics, metricLabel, preferredMetrics } from "../../../renderer/src/lib/charts/metricLabels.js";
import { metricNames, prepareMetricSeries } from "../../../renderer/src/lib/charts/prepareMetricSeries.js";
import { durationKind, formatMetric, formatMetricValue, prepareMetricChart } from "../../../renderer/src/lib/charts/prepareMetricChart.js";

const series = [{ key: "run1", label: "run 1" }];

describe("chart formatting", () => {
  it("shows durations in words, never raw milliseconds", () => {
    expect(durationKind("wallTimeMs")).toBe("durationMs");
    expect(durationKind("step_ms")).toBe("durationMs");
    expect(durationKind("seconds")).toBe("durationSeconds");
    expect(durationKind("meanRegret")).toBeNull();
    expect(formatMetricValue(141348, "durationMs")).toBe("2 min 21 s");
    expect(formatMetricValue(12.4, "durationSeconds")).toBe("12.4 s");
    const single = prepareMetricChart("wallTimeMs", [{ iteration: 0, run1: 141348 }], series);
    expect(single.kind).toBe("durationMs");
    expect(single.single?.[0]?.text).toBe("2 min 21 s");
    expect(formatMetric("wallTimeMs", 141348)).toBe("2 min 21 s");
    expect(formatMetric("validityRate", 0.5)).toBe("50.0%");
    expect(formatMetric("tokensPerEnv", 812.4)).toBe("812");
    expect(formatMetric("tokensPerEnv", null)).toBe("–");
    expect(metricLabel("wallTimeMs")).toBe("Iteration wall time");
    expect(metricLabel("timePerEnvMs")).not.toMatch(/\(ms\)/);
  });

  it("makes the value axis wide enough for its longest label", () => {
    const small = prepareMetricChart("meanRegret", [{ iteration: 0, run1: 0.1 }, { iteration: 1, run1: 0.2 }], series);
    const long = prepareMetricChart("wallTimeMs", [{ iteration: 0, run1: 141348 }, { iteration: 1, run1: 4_000_000 }], series);
    const big = prepareMetricChart("tokensPerEnv", [{ iteration: 0, run1: 98_765 }, { iteration: 1, run1: 12 }], series);
    // Ticks read "1.1 h", "40 min", "98765": the axis holds the longest with a digit to spare.
    expect(long.axisWidth).toBeGreaterThanOrEqual("2.4 min".length * 7);
    expect(big.axisWidth).toBeGreaterThanOrEqual(5 * 7);
    expect(small.axisWidth).toBeGreaterThanOrEqual(40);
    expect(long.axisWidth).toBeGreaterThan(small.axisWidth);
  });

  it("shows the core curves from the first iteration, so a metric missing everywhere gets a tile that says why", () => {
    const metrics = { runId: 1, iterations: [{ iteration: 0, values: { validityRate: 0 }, series: {} }] };
    expect(metricNames([metrics], preferredMetrics, coreMetrics)).toEqual(["validityRate", "meanRegret", "meanWinRate"]);
    expect(metricNames([{ runId: 1, iterations: [] }], preferredMetrics, coreMetrics)).toEqual([]);
    expect(metricNames([metrics], preferredMetrics)).toEqual(["validityRate"]);
    expect(prepareMetricChart("meanRegret", prepareMetricSeries([metrics], "meanRegret"), series).empty).toMatch(/^No values yet: /);
  });

  it("says why a chart is empty, and leaves charts with values alone", () => {
    const gaps = prepareMetricChart("meanRegret", [{ iteration: 0, run1: null }, { iteration: 1, run1: null }], series);
    expect(gaps.empty).toMatch(/^No values yet: regret needs plays with and without a hint/);
    expect(prepareMetricChart("someNewMetric", [], series).empty).toMatch(/^No values yet: no iteration has measured this metric/);
    expect(prepareMetricChart("meanRegret", [{ iteration: 0, run1: 0 }], series).empty).toBeNull();
  });
});

describe("axis ticks", () => {
  it("label a duration in one unit, short enough not to wrap", async () => {
    const { formatAxisValue } = await import("../../../renderer/src/lib/charts/prepareMetricChart.js");
    expect(formatAxisValue(0, "durationMs")).toBe("0 ms");
    expect(formatAxisValue(850, "durationMs")).toBe("850 ms");
    expect(formatAxisValue(12_400, "durationMs")).toBe("12 s");
    expect(formatAxisValue(4_500, "durationMs")).toBe("4.5 s");
    expect(formatAxisValue(1_500_000, "durationMs")).toBe("25 min");
    expect(formatAxisValue(4_500_000, "durationMs")).toBe("1.3 h");
    expect(formatAxisValue(90, "durationSeconds")).toBe("1.5 min");
    expect(formatAxisValue(0.25, "rate")).toBe("25.0%");
  });
});
