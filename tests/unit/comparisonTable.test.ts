// The paper's table from held-out points, checked against numbers worked out by hand: the latest
// adapter's score per suite, gaps kept as gaps, the mean over suites, the difference to a baseline
// run, the three export formats, and the curves over rollouts.
import { describe, expect, it } from "vitest";
import { buildComparisonTable, buildHeldOutCurves, renderComparisonTable, type ComparisonRunInput } from "../../shared/comparisonTable.js";

const point = (suite: string, score: number, afterIteration: number | null, interval: [number, number] | null = null, createdAt = 0) => ({ suite, score, interval, n: 10, afterIteration, createdAt });

const runs: ComparisonRunInput[] = [
  { id: 1, name: "spade", badges: [], heldOut: [point("/s/aime.jsonl", 0.2, 3), point("/s/aime.jsonl", 0.3, 7, [0.1, 0.5]), point("/s/code.jsonl", 0.5, 7, [0.4, 0.6])] },
  { id: 2, name: "rlve", badges: ["baseline: RLVE official16"], heldOut: [point("/s/aime.jsonl", 0.25, 7, [0.05, 0.45]), point("/s/code.jsonl", 0.4, 7)] },
  { id: 3, name: null, badges: ["no corpus"], heldOut: [point("/s/aime.jsonl", 0.1, null, null, 5), point("/s/aime.jsonl", 0.15, null, null, 9)] },
];

describe("buildComparisonTable", () => {
  it("takes each run's latest adapter per suite, keeps gaps, and averages over the suites a run has", () => {
    const table = buildComparisonTable(runs);
    expect(table.suites).toEqual(["/s/aime.jsonl", "/s/code.jsonl"]);
    expect(table.labels).toEqual(["aime", "code"]);
    expect(table.rows.map((row) => row.cells.map((cell) => cell?.score ?? null))).toEqual([[0.3, 0.5], [0.25, 0.4], [0.15, null]]);
    expect(table.rows.map((row) => row.mean)).toEqual([0.4, 0.325, 0.15]);
    expect(table.rows.map((row) => row.complete)).toEqual([true, true, false]);
    expect(table.rows.every((row) => row.diff === null)).toBe(true);
  });

  it("gives the difference to the baseline run per suite and over the suites both have", () => {
    const table = buildComparisonTable(runs, 2);
    expect(table.rows[0]!.diff![0]).toBeCloseTo(0.05, 12);
    expect(table.rows[0]!.diff![1]).toBeCloseTo(0.1, 12);
    expect(table.rows[0]!.meanDiff).toBeCloseTo(0.075, 12);
    expect(table.rows[1]!.diff).toEqual([0, 0]);
    expect(table.rows[2]!.diff![0]).toBeCloseTo(-0.1, 12);
    expect(table.rows[2]!.diff![1]).toBeNull();
    expect(table.rows[2]!.meanDiff).toBeCloseTo(-0.1, 12); // aime only: 0.15 - 0.25
    expect(() => buildComparisonTable(runs, 9)).toThrow(/baseline run 9 is not one of the compared runs \(1, 2, 3\)/);
  });

  it("renders CSV, Markdown and LaTeX", () => {
    const table = buildComparisonTable(runs, 2);
    expect(renderComparisonTable(table, "csv")).toBe(
      [
        "run,badges,aime,aime low,aime high,code,code low,code high,mean,Δ aime,Δ code,Δ mean",
        "run 1 spade,SPADE,30.0,10.0,50.0,50.0,40.0,60.0,40.0,+5.0,+10.0,+7.5",
        "run 2 rlve,baseline: RLVE official16,25.0,5.0,45.0,40.0,,,32.5,+0.0,+0.0,+0.0",
        "run 3,no corpus,15.0,,,,,,15.0,-10.0,,-10.0",
        "",
      ].join("\n"),
    );
    expect(renderComparisonTable(table, "markdown").split("\n").slice(0, 3)).toEqual([
      "| run | badges | aime | code | mean | Δ aime | Δ code | Δ mean |",
      "| --- | --- | --- | --- | --- | --- | --- | --- |",
      "| run 1 spade | SPADE | 30.0 [10.0, 50.0] | 50.0 [40.0, 60.0] | 40.0 | +5.0 | +10.0 | +7.5 |",
    ]);
    const latex = renderComparisonTable(buildComparisonTable([{ ...runs[0]!, name: "a_b & 100%" }]), "latex");
    expect(latex).toBe(
      ["\\begin{tabular}{llrrr}", "\\toprule", "run & badges & aime & code & mean \\\\", "\\midrule", "run 1 a\\_b \\& 100\\% & SPADE & 30.0 [10.0, 50.0] & 50.0 [40.0, 60.0] & 40.0 \\\\", "\\bottomrule", "\\end{tabular}", ""].join("\n"),
    );
  });

  it("draws held-out curves over rollouts from the adapters training rounds made", () => {
    const curves = buildHeldOutCurves(runs);
    expect(curves.map((curve) => curve.label)).toEqual(["aime", "code"]);
    expect(curves[0]!.series.map((series) => series.points)).toEqual([
      [{ iteration: 3, score: 0.2 }, { iteration: 7, score: 0.3 }],
      [{ iteration: 7, score: 0.25 }],
      [],
    ]);
  });
});
