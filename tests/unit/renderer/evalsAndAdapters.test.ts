import { describe, expect, it } from "vitest";
import type { AdapterView, EvalResultView } from "../../../shared/api/modelTypes.js";
import { orderByLineage } from "../../../renderer/src/features/models/lib/orderByLineage.js";
import { evalScore, prepareEvalComparison } from "../../../renderer/src/lib/evals/prepareEvalComparison.js";

const adapter = (id: number, parentId: number | null, name = `a${id}`): AdapterView => ({ id, runId: 1, parentId, name, path: null, status: "ready", baseModelSha256: null, metrics: null, createdAt: id });
let nextId = 1;
const result = (adapterId: number | null, suite: string, score: Partial<EvalResultView>): EvalResultView => ({ id: nextId, adapterId, suite, n: 10, correct: null, accuracy: null, meanReturn: null, winRate: null, createdAt: nextId++, ...score });

describe("prepareEvalComparison", () => {
  it("puts the base model first, then each evaluated adapter, with the change against base per suite", () => {
    const comparison = prepareEvalComparison(
      [result(null, "gsm8k", { accuracy: 0.3 }), result(2, "gsm8k", { accuracy: 0.2 }), result(2, "gsm8k", { accuracy: 0.4 }), result(null, "envs", { winRate: 0.5, meanReturn: 0.1 }), result(3, "envs", { meanReturn: 0.2 })],
      [adapter(2, null, "it1"), adapter(3, 2, "it2")],
    );
    expect(comparison.suites).toEqual(["envs", "gsm8k"]);
    expect(comparison.models.map((m) => m.label)).toEqual(["base model", "it1", "it2"]);
    const it1 = comparison.models[1]!.scores.gsm8k!;
    expect(it1.value).toBe(0.4); // the latest result wins
    expect(it1.delta).toBeCloseTo(0.1);
    // it2 only has a mean return on "envs", the base a win rate: different metrics, no delta
    expect(comparison.models[2]!.scores.envs).toEqual({ value: 0.2, metric: "meanReturn", n: 10, delta: null });
    expect(comparison.chartRows).toEqual([
      { suite: "envs", base: 0.5, adapter2: null, adapter3: 0.2 },
      { suite: "gsm8k", base: 0.3, adapter2: 0.4, adapter3: null },
    ]);
  });

  it("puts shares on a 0-100% axis (a score of 0.36 never on 0-4), and fits an axis holding a mean return", () => {
    const shares = prepareEvalComparison([result(null, "gsm8k", { accuracy: 0.31 }), result(2, "gsm8k", { accuracy: 0.36 }), result(null, "envs", { winRate: 0 })], [adapter(2, null)]);
    expect(shares.axis?.domain).toEqual([0, 1]);
    expect(shares.axis?.ticks.map((tick) => tick.label)).toEqual(["0%", "25%", "50%", "75%", "100%"]);
    const returns = prepareEvalComparison([result(null, "envs", { meanReturn: -2 }), result(null, "gsm8k", { accuracy: 0.5 })], []);
    expect(returns.axis?.domain).toEqual([-2, 1]);
    expect(prepareEvalComparison([], []).axis).toBeNull();
  });

  it("scores accuracy first, then win rate, then mean return", () => {
    expect(evalScore(result(null, "s", { accuracy: 0, winRate: 1 }))).toEqual({ value: 0, metric: "accuracy" });
    expect(evalScore(result(null, "s", { winRate: 0.2, meanReturn: 1 }))).toEqual({ value: 0.2, metric: "winRate" });
    expect(evalScore(result(null, "s", {}))).toBeNull();
  });
});

describe("orderByLineage", () => {
  it("lists each adapter under its parent, roots and siblings oldest first", () => {
    const rows = orderByLineage([adapter(4, 1), adapter(1, null), adapter(3, null), adapter(2, 1), adapter(5, 2), adapter(6, 99)]);
    expect(rows.map((r) => [r.adapter.id, r.depth])).toEqual([
      [1, 0],
      [2, 1],
      [5, 2],
      [4, 1],
      [3, 0],
      [6, 0],
    ]);
  });

  it("keeps adapters caught in a parent cycle instead of dropping them", () => {
    expect(orderByLineage([adapter(1, 2), adapter(2, 1)]).map((r) => r.adapter.id)).toEqual([1, 2]);
  });
});
