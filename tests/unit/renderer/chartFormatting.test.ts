import { describe, expect, it } from "vitest";
import { coreMetrics, metricLabel, preferredMetrics } from "../../../renderer/src/lib/charts/metricLabels.js";
import { metricNames, prepareMetricSeries } from "../../../renderer/src/lib/charts/prepareMetricSeries.js";
import { axisTicks } from "../../../renderer/src/lib/charts/axisTicks.js";
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
    // Ticks read "0.0 h" .. "1.5 h", "0k" .. "100k", "0.100" .. "0.200": the axis holds the longest.
    for (const chart of [small, long, big]) expect(chart.axisWidth).toBeGreaterThanOrEqual(7 * Math.max(...chart.ticks.map((tick) => tick.label.length)));
    expect(long.ticks.map((tick) => tick.label)).toContain("1.0 h");
    expect(small.axisWidth).toBeGreaterThanOrEqual(40);
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
  const labels = (values: number[], kind: Parameters<typeof axisTicks>[1]["kind"], integer = false) => axisTicks(values, { kind, integer }).ticks.map((tick) => tick.label);
  const distinct = (list: string[]) => new Set(list).size === list.length;

  it("never repeat a label: a duration axis over a few seconds of a minute-and-a-half iteration", () => {
    // Iteration wall times 95.2 s to 98.9 s: the old axis read "1.6 min" five times.
    const ticks = labels([95_200, 96_100, 98_900], "durationMs");
    expect(distinct(ticks)).toBe(true);
    expect(ticks.every((label) => label.endsWith(" min"))).toBe(true);
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    expect(labels([141_348, 4_000_000], "durationMs").every((label) => label.endsWith(" h"))).toBe(true);
    expect(labels([0.5, 2], "durationSeconds")).toEqual(["0.5 s", "1.0 s", "1.5 s", "2.0 s"]);
  });

  it("count in whole numbers, and fit the values in round steps", () => {
    expect(labels([10, 12, 10], "number", true)).toEqual(["10", "11", "12"]);
    expect(labels([3, 3, 3], "number", true)).toEqual(["2", "3", "4"]);
    expect(labels([0, 0], "number", true)).toEqual(["0", "1"]);
    expect(labels([0.1, 0.2], "number")).toEqual(["0.100", "0.125", "0.150", "0.175", "0.200"]);
    expect(labels([1200, 2300], "number", true)).toEqual(["1000", "1500", "2000", "2500"]);
    expect(labels([12, 198_765], "number", true)).toEqual(["0k", "50k", "100k", "150k", "200k"]);
    const { domain, ticks } = axisTicks([2.94, 2.99], { kind: "number" });
    expect(domain).toEqual([ticks[0]!.value, ticks[ticks.length - 1]!.value]);
    expect(domain[0]).toBeLessThanOrEqual(2.94);
    expect(domain[1]).toBeGreaterThanOrEqual(2.99);
    expect(distinct(labels([2.94, 2.99], "number"))).toBe(true);
  });

  it("put rates on 0-100% and a 0/1 flag on two named ticks, never a line on a -1..3 axis", () => {
    expect(labels([0.2, 0.3], "rate")).toEqual(["0%", "25%", "50%", "75%", "100%"]);
    const flag = prepareMetricChart("regeneration", [{ iteration: 0, run1: 1 }, { iteration: 1, run1: 0 }, { iteration: 2, run1: 1 }], series);
    expect(flag).toMatchObject({ flag: true, domain: [0, 1], ticks: [{ value: 0, label: "replayed" }, { value: 1, label: "new" }] });
    expect(prepareMetricChart("regeneration", [{ iteration: 0, run1: 1 }], series).single?.[0]?.text).toBe("new");
  });
});
