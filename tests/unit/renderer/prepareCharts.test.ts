import { describe, expect, it } from "vitest";
import type { RunMetrics } from "../../../shared/api/runTypes.js";
import { prepareHistogram } from "../../../renderer/src/lib/charts/prepareHistogram.js";
import { metricNames, prepareMetricSeries } from "../../../renderer/src/lib/charts/prepareMetricSeries.js";
import { configDifferences } from "../../../renderer/src/features/compare/lib/configDifferences.js";

const a: RunMetrics = { runId: 1, iterations: [{ iteration: 0, values: { meanRegret: 0.1, zeta: 1 }, series: {} }, { iteration: 1, values: { meanRegret: 0.2 }, series: {} }] };
const b: RunMetrics = { runId: 2, iterations: [{ iteration: 1, values: { meanRegret: 0.3, validityRate: 1 }, series: {} }] };

describe("chart preparation", () => {
  it("lines runs up by iteration with one column per run and gaps (null) where a run has no value", () => {
    expect(prepareMetricSeries([a, b], "meanRegret")).toEqual([
      { iteration: 0, run1: 0.1, run2: null },
      { iteration: 1, run1: 0.2, run2: 0.3 },
    ]);
  });

  it("lists known metrics first in their fixed order, then the others alphabetically", () => {
    expect(metricNames([a, b], ["validityRate", "meanRegret"])).toEqual(["validityRate", "meanRegret", "zeta"]);
  });

  it("labels histogram bins over [0, 1]", () => {
    expect(prepareHistogram([3, 0, 1, 2])).toEqual([
      { bin: "0.0–0.3", count: 3 },
      { bin: "0.3–0.5", count: 0 },
      { bin: "0.5–0.8", count: 1 },
      { bin: "0.8–1.0", count: 2 },
    ]);
    expect(prepareHistogram(undefined)).toEqual([]);
  });

  it("names only the config keys whose values differ", () => {
    expect(configDifferences([{ seed: 1, memory: { enabled: true }, plays: 8 }, { seed: 1, memory: { enabled: false } }])).toEqual([
      { key: "memory.enabled", values: [true, false] },
      { key: "plays", values: [8, undefined] },
    ]);
  });
});
