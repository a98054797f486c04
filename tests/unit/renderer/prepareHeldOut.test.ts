// The Compare page's held-out curves: one row per rollout, one column per run, gaps kept.
import { describe, expect, it } from "vitest";
import { drawnHeldOutCurves, prepareHeldOutCurve, tableFileName } from "../../../renderer/src/features/compare/lib/prepareHeldOut.js";

const curve = {
  suite: "/s/gpqa.jsonl",
  label: "gpqa",
  series: [
    { runId: 1, name: "spade", points: [{ iteration: 3, score: 0.2 }, { iteration: 7, score: 0.3 }] },
    { runId: 2, name: null, points: [{ iteration: 7, score: 0.25 }] },
  ],
};

describe("prepareHeldOutCurve", () => {
  it("lines runs up by rollout with gaps where a run was not evaluated", () => {
    expect(prepareHeldOutCurve(curve)).toEqual([
      { iteration: 3, run1: 0.2, run2: null },
      { iteration: 7, run1: 0.3, run2: 0.25 },
    ]);
  });

  it("draws only curves with points, and names export files by run and format", () => {
    expect(drawnHeldOutCurves([curve, { ...curve, suite: "x", series: [{ runId: 1, name: null, points: [] }] }])).toEqual([curve]);
    expect(tableFileName([1, 2], "latex")).toBe("spade-compare-1-2.tex");
    expect(tableFileName([4], "markdown")).toBe("spade-compare-4.md");
  });
});
