import { describe, expect, it } from "vitest";
import type { RunMetrics } from "../../../shared/api/runTypes.js";
import { prepareHistogram } from "../../../renderer/src/lib/charts/prepareHistogram.js";
import { metricNames, prepareMetricSeries } from "../../../renderer/src/lib/charts/prepareMetricSeries.js";
import type { RunComparisonView } from "../../../shared/api/compareTypes.js";
import { comparedMetricNames, designerChartsNote, formatConfigValue, prepareComparisonSeries } from "../../../renderer/src/features/compare/lib/prepareComparison.js";

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

  it("overlays compared runs by iteration, one column per run, gaps where a run has no value", () => {
    const view: RunComparisonView = {
      metrics: ["validityRate", "meanRegret", "noveltyRate"],
      runs: [
        { id: 4, name: "a", status: "completed", ablations: [], designerKind: "llm", iterations: [{ iteration: 0, validityRate: 0.5, meanRegret: null, noveltyRate: null }, { iteration: 1, validityRate: 0.7, meanRegret: 0.1, noveltyRate: null }], summary: {}, heldOut: [] },
        { id: 9, name: null, status: "paused", ablations: ["no memory"], designerKind: "llm", iterations: [{ iteration: 1, validityRate: 0.4, meanRegret: 0.2, noveltyRate: null }], summary: {}, heldOut: [] },
      ],
      configDiff: [],
      table: { suites: [], labels: [], baselineRunId: null, rows: [] },
      curves: [],
    };
    expect(prepareComparisonSeries(view, "validityRate")).toEqual([
      { iteration: 0, run4: 0.5, run9: null },
      { iteration: 1, run4: 0.7, run9: 0.4 },
    ]);
    expect(comparedMetricNames(view)).toEqual(["validityRate", "meanRegret"]);
    expect(designerChartsNote(view)).toBeNull();
  });

  it("leaves designer lines out for runs without a designer, and the designer charts when no run has one, saying why", () => {
    const run = (id: number, designerKind: string, designerReward: number, noveltyRate: number) => ({ id, name: null, status: "completed", ablations: [], designerKind, iterations: [{ iteration: 0, validityRate: 1, designerReward, noveltyRate }], summary: {}, heldOut: [] });
    const base = { metrics: ["validityRate", "designerReward", "noveltyRate"], configDiff: [], table: { suites: [], labels: [], baselineRunId: null, rows: [] }, curves: [] };
    const mixed: RunComparisonView = { ...base, runs: [run(1, "llm", 0.4, 0.5), run(2, "fixed", 0, 0)] };
    expect(comparedMetricNames(mixed)).toEqual(["validityRate", "designerReward", "noveltyRate"]);
    expect(prepareComparisonSeries(mixed, "designerReward")).toEqual([{ iteration: 0, run1: 0.4, run2: null }]);
    expect(prepareComparisonSeries(mixed, "validityRate")).toEqual([{ iteration: 0, run1: 1, run2: 1 }]);
    expect(designerChartsNote(mixed)).toBe("Left out of designer reward, novelty rate: #2; a fixed-pool run draws its games from an environment set, so no model designs and nothing scores a designer.");
    expect(designerChartsNote({ ...base, runs: [run(2, "fixed", 0, 0)] })).toBe("Not charted: designer reward, novelty rate: the run has no designer; a fixed-pool run draws its games from an environment set, so no model designs and nothing scores a designer.");
    const pools: RunComparisonView = { ...base, runs: [run(2, "fixed", 0, 0), run(3, "library", 0, 1)] };
    expect(comparedMetricNames(pools)).toEqual(["validityRate"]);
    expect(designerChartsNote(pools)).toBe(
      "Not charted: designer reward, novelty rate: no compared run has a designer; a fixed-pool run draws its games from an environment set, so no model designs and nothing scores a designer. A library run draws its games from an environment library, so no model designs and nothing scores a designer.",
    );
  });

  it("says when a run's config lacks a key instead of showing null", () => {
    expect(formatConfigValue({ set: false })).toBe("not set");
    expect(formatConfigValue({ set: true, value: null })).toBe("null");
    expect(formatConfigValue({ set: true, value: { kind: "regret" } })).toBe('{"kind":"regret"}');
  });
});
