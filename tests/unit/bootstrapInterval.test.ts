// The percentile bootstrap interval of a mean over items: reproducible, degenerate where it must
// be, and as wide as the data says (checked against the normal approximation for a large sample).
import { describe, expect, it } from "vitest";
import { bootstrapInterval } from "../../main/eval/bootstrapInterval.js";
import { normalQuantile, scoreInterval, wilsonInterval } from "../../main/eval/scoreInterval.js";
import { storedInterval, storedItemScores } from "../../main/eval/storeEvalReport.js";

describe("bootstrapInterval", () => {
  it("is [0, 0] for no items, the mean for one, and the value for identical items", () => {
    expect(bootstrapInterval([])).toEqual([0, 0]);
    expect(bootstrapInterval([0.3])).toEqual([0.3, 0.3]);
    expect(bootstrapInterval([1, 1, 1, 1])).toEqual([1, 1]);
  });

  it("is reproducible from its seed and brackets the mean", () => {
    const scores = [1, 0, 1, 1, 0, 0, 1, 0.5, 0.25, 1];
    expect(bootstrapInterval(scores, { seed: 3 })).toEqual(bootstrapInterval(scores, { seed: 3 }));
    const [low, high] = bootstrapInterval(scores);
    expect(low).toBeLessThan(0.575);
    expect(high).toBeGreaterThan(0.575);
  });

  it("matches mean +- 1.96 standard errors on 400 coin flips", () => {
    const scores = Array.from({ length: 400 }, (_, i) => (i % 5 < 2 ? 1 : 0)); // p = 0.4
    const se = Math.sqrt((0.4 * 0.6) / 400);
    const [low, high] = bootstrapInterval(scores, { seed: 1 });
    expect(low).toBeCloseTo(0.4 - 1.96 * se, 1.5);
    expect(high).toBeCloseTo(0.4 + 1.96 * se, 1.5);
    expect(high - low).toBeGreaterThan(2 * 1.8 * se);
    expect(high - low).toBeLessThan(2 * 2.1 * se);
  });

  it("reads per-item scores back from stored results of each kind", () => {
    const base = { id: 1, adapterId: null, suite: "s", n: 2, correct: null, accuracy: null, meanReturn: null, winRate: null, createdAt: 0 };
    expect(storedItemScores({ ...base, items: [{ correct: true }, { correct: false }] })).toEqual([1, 0]);
    expect(storedItemScores({ ...base, items: [{ correct: true, score: 0.75 }] })).toEqual([0.75]);
    expect(storedItemScores({ ...base, items: [{ passed: 1, samples: 4 }, { passed: 0, samples: 4 }] })).toEqual([0.25, 0]);
    expect(storedItemScores({ ...base, items: [{ meanReturn: -0.5 }] })).toEqual([-0.5]);
    expect(storedItemScores({ ...base, items: [{ something: 1 }] })).toBeNull();
    expect(storedInterval({ ...base, items: [{ correct: true }, { correct: true }] })).toEqual(wilsonInterval(2, 2)); // 2/2: Wilson's, not [1, 1]
  });
});

describe("scoreInterval", () => {
  it("is Wilson's score interval for items scored 0 or 1: 0/10 is [0, 0.278], never [0, 0]", () => {
    // By hand, z = 1.959964: centre = (0 + z^2/20) / (1 + z^2/10) = 0.13875 = half-width.
    const [low, high] = scoreInterval(new Array(10).fill(0));
    expect(low).toBe(0);
    expect(high).toBeCloseTo(0.2775, 4);
    const [allLow, allHigh] = scoreInterval(new Array(10).fill(1));
    expect(allLow).toBeCloseTo(1 - 0.2775, 4);
    expect(allHigh).toBe(1);
    // 4/10: the textbook Wilson interval [0.168, 0.687].
    const [l4, h4] = scoreInterval([1, 1, 1, 1, 0, 0, 0, 0, 0, 0]);
    expect(l4).toBeCloseTo(0.1682, 4);
    expect(h4).toBeCloseTo(0.6873, 4);
    expect(scoreInterval([])).toEqual([0, 0]);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 6);
  });

  it("is the bootstrap for partial scores", () => {
    const scores = [1, 0, 0.5, 0.25, 1];
    expect(scoreInterval(scores, { seed: 2 })).toEqual(bootstrapInterval(scores, { seed: 2 }));
  });
});
