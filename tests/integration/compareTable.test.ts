// The comparison table from a real workspace: runs (SPADE and an RLVE baseline) whose training
// rounds registered adapters evaluated on held-out suites; the cells, intervals (from the stored
// items), rollouts and badges come from the store.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { scoreInterval } from "../../main/eval/scoreInterval.js";
import { compareCommand } from "../../main/cli/commands/compareCommand.js";
import { compareRuns } from "../../main/experiments/compareRuns.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { insertAdapter } from "../../main/store/queries/adapters.js";
import { insertEvalResult } from "../../main/store/queries/evalResults.js";
import { createRun } from "../../main/store/queries/runs.js";
import { setTrainingRoundAdapter, startTrainingRound } from "../../main/store/queries/trainingRounds.js";
import { runCommand } from "../support/runCommand.js";

describe("compareRuns' table", () => {
  it("shows each run's latest round's held-out scores with intervals and its badges", () => {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), "spade-compare-")), "w.sqlite"));
    const base = { db: "w.sqlite", backend: { kind: "openai", baseUrl: "http://127.0.0.1:1/v1", model: "m" }, corpus: null };
    const spade = createRun(db, { name: "spade", config: parseRunConfig(base, "a.json") });
    const rlve = createRun(db, { name: "rlve", config: parseRunConfig({ ...base, recipe: "fixed-rlve", designer: { kind: "library", library: { kind: "rlve", path: "/g/Gym" } } }, "b.json") });
    const items = (pattern: boolean[]) => pattern.map((correct, index) => ({ index, expected: "1", predicted: correct ? "1" : "2", correct }));
    const evaluated = (runId: number, afterIteration: number, round: number, name: string, correct: boolean[]) => {
      startTrainingRound(db, runId, afterIteration, null);
      const adapterId = insertAdapter(db, { runId, name, path: `/a/${name}.gguf` });
      setTrainingRoundAdapter(db, runId, round, adapterId);
      const accuracy = correct.filter(Boolean).length / correct.length;
      insertEvalResult(db, { adapterId, suite: "/suites/gpqa.jsonl", n: correct.length, correct: correct.filter(Boolean).length, accuracy, items: items(correct) });
    };
    evaluated(spade.id, 3, 0, "s-r0", [true, false, false, false]);
    evaluated(spade.id, 7, 1, "s-r1", [true, true, false, true]);
    evaluated(rlve.id, 7, 0, "b-r0", [true, false, true, false]);
    const { table, curves, runs } = compareRuns(db, [spade.id, rlve.id], { baselineRunId: rlve.id });
    // Each run's designer kind, from its stored config: the Compare page keeps designer charts to "llm" runs.
    expect(runs.map((run) => run.designerKind)).toEqual(["llm", "library"]);
    expect(table.labels).toEqual(["gpqa"]);
    expect(table.rows.map((row) => row.badges.filter((badge) => !badge.startsWith("deviation: LoRA")))).toEqual([["no corpus"], ["baseline: RLVE official16 (sliding window, 128 plays at 0.9)"]]);
    expect(table.rows[0]!.cells[0]).toEqual({ score: 0.75, interval: scoreInterval([1, 1, 0, 1]), n: 4, afterIteration: 7 });
    expect(table.rows[0]!.diff).toEqual([0.25]);
    expect(curves[0]!.series[0]!.points).toEqual([{ iteration: 3, score: 0.25 }, { iteration: 7, score: 0.75 }]);
    db.close();
  });
});

describe("spade compare --table", () => {
  it("with no held-out scores prints the empty table and a note saying why", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "spade-compare-empty-")), "w.sqlite");
    const db = openDatabase(path);
    const base = { db: "w.sqlite", backend: { kind: "openai", baseUrl: "http://127.0.0.1:1/v1", model: "m" }, corpus: null };
    const a = createRun(db, { name: "a", config: parseRunConfig(base, "a.json") });
    const b = createRun(db, { name: "b", config: parseRunConfig({ ...base, seed: 2 }, "b.json") });
    db.close();
    const result = await runCommand(compareCommand, ["--db", path, "--runs", `${a.id},${b.id}`, "--table", "markdown"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("| run |");
    expect(result.stderr).toBe(`note: runs ${a.id}, ${b.id} have no held-out scores, so the table has no scores; evaluate an adapter of each run (spade eval --suite <file> --config <run.json> --adapter <id>) or give the run a "training.eval" suite\n`);
  });
});
