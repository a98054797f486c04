// The training bench's breakdown of a round (issue 20, Benchmarks): each recorded phase, and the rest.
import { describe, expect, it } from "vitest";
import { roundBreakdown } from "../../main/bench/trainingBench.js";

describe("roundBreakdown", () => {
  it("keeps the recorded phases, leaves out other metrics, and counts what they do not cover as otherSeconds", () => {
    const metrics = { batchSeconds: 0.1, recomputeSeconds: 0.5, forwardBackwardSeconds: 0.8, optimizerSeconds: 0.2, writeSeconds: 0.02, registerSeconds: 0.08, reloadSeconds: 0.2, loss: 3, seconds: 1.6 };
    const breakdown = roundBreakdown(metrics, 2.5);
    expect(Object.keys(breakdown)).toEqual(["batchSeconds", "recomputeSeconds", "forwardBackwardSeconds", "optimizerSeconds", "writeSeconds", "registerSeconds", "reloadSeconds", "otherSeconds"]);
    expect(breakdown.otherSeconds).toBeCloseTo(0.6, 9);
  });

  it("never reports negative rest when the phases' clocks overlap the round's", () => {
    expect(roundBreakdown({ forwardBackwardSeconds: 3 }, 2.9).otherSeconds).toBe(0);
  });
});
