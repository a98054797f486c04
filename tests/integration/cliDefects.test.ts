// Small defects of the command line that a newcomer meets first: help on command groups, a report
// piped into `head`, a failed run's error in the report.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildUiFixture } from "../../main/bench/uiFixture.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { putMetrics } from "../../main/store/queries/metrics.js";
import { createRun } from "../../main/store/queries/runs.js";
import { spadeCli } from "../support/startCli.js";

function spade(args: string[]) {
  return spawnSync(process.execPath, [spadeCli, ...args], { encoding: "utf8", timeout: 60_000 });
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-cli-defects-"));
});

describe("spade command groups", () => {
  it.each([
    ["env", ["env validate", "env play"]],
    ["envs", ["envs export", "envs import"]],
  ])("spade %s --help exits 0 and lists the subcommands", (group, subcommands) => {
    for (const flag of ["--help", "-h"]) {
      const result = spade([group, flag]);
      expect(result.stderr).toBe("");
      expect(result.status).toBe(0);
      for (const sub of subcommands) expect(result.stdout).toContain(`spade ${sub}`.replace("spade ", ""));
    }
    const bare = spade([group]);
    expect(bare.status).toBe(2);
    expect(bare.stderr).toMatch(new RegExp(`spade ${group}: a subcommand is required`));
  });
});

describe("spade report", () => {
  it("piped into head -2: two lines, exit 0, no EPIPE stack trace", () => {
    const db = join(dir, "big.sqlite");
    buildUiFixture(db, { extraEnvironments: 3000 });
    const result = spawnSync("bash", ["-o", "pipefail", "-c", `"${process.execPath}" "${spadeCli}" report --db "${db}" | head -2`], { encoding: "utf8", timeout: 60_000 });
    expect(result.stderr).toBe("");
    expect(result.stdout.split("\n").filter(Boolean)).toHaveLength(2);
    expect(result.status).toBe(0);
  }, 120_000);

  it("prints a failed run's error", () => {
    const path = join(dir, "failed.sqlite");
    const db = openDatabase(path);
    createRun(db, { name: "broken", status: "failed" });
    db.prepare("UPDATE runs SET error = ? WHERE id = 1").run("environment set \"examples\" is empty or does not exist");
    db.close();
    const result = spade(["report", "--db", path]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('run 1 "broken" failed, 0 iterations\n  error: environment set "examples" is empty or does not exist\n');
  });
});

describe("spade report names attempts as the progress line and the workbench do", () => {
  it("iteration and slot as stored, attempts counted from 1", () => {
    const path = join(dir, "attempts.sqlite");
    const db = openDatabase(path);
    const run = createRun(db, { name: "attempts", status: "completed" });
    const first = insertEnvironment(db, { runId: run.id, iteration: 0, slot: 1, attempt: 0, source: "designer", code: "x = (", className: "FirstEnv", valid: false, validationError: "syntax error" });
    const second = insertEnvironment(db, { runId: run.id, iteration: 0, slot: 1, attempt: 1, source: "designer", code: "x = (", className: "SecondEnv", valid: false, validationError: "syntax error" });
    db.close();
    const result = spade(["report", "--db", path]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`  #${first} iteration 0 slot 1 attempt 1 FirstEnv: invalid: syntax error\n`);
    expect(result.stdout).toContain(`  #${second} iteration 0 slot 1 attempt 2 SecondEnv: invalid: syntax error\n`);
  });
});

describe("spade compare", () => {
  it("prints each run's loop metrics per iteration, numbered as stored", () => {
    const path = join(dir, "compare.sqlite");
    const db = openDatabase(path);
    const a = createRun(db, { name: "a" });
    const b = createRun(db, { name: "b" });
    putMetrics(db, a.id, 0, { validityRate: 1, meanRegret: 0.2, meanWinRate: 0.5, designerReward: 0.7, noveltyRate: 1 });
    putMetrics(db, a.id, 1, { validityRate: 0.5, meanRegret: 0.4, meanWinRate: 0.25, designerReward: 0.9, noveltyRate: null, vendiPerN: 0.8 });
    putMetrics(db, b.id, 0, { validityRate: 0, meanRegret: null });
    db.close();
    const result = spade(["compare", "--db", path, "--runs", `${a.id},${b.id}`]);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const lines = result.stdout.split("\n");
    const first = lines.findIndex((line) => line.startsWith(`run ${a.id} "a"`));
    expect(lines.slice(first + 1, first + 4)).toEqual([
      "  iteration  validity  regret  win rate  designer reward  novelty  Vendi / n",
      "  0             1.000   0.200     0.500            0.700    1.000          -",
      "  1             0.500   0.400     0.250            0.900        -      0.800",
    ]);
    const second = lines.findIndex((line) => line.startsWith(`run ${b.id} "b"`));
    expect(lines[second + 2]).toBe("  0             0.000       -         -                -        -          -");
  });
});

describe("spade run with a corpus that has lines that are not documents", () => {
  it("names them at the start and again in the run's summary at the end, control characters escaped", () => {
    const folder = mkdtempSync(join(dir, "corpus-run-"));
    writeFileSync(join(folder, "docs.jsonl"), `${JSON.stringify({ text: "a document" })}\n${JSON.stringify({ text: 5 })}\n\u0000{oops\n`);
    const config = { db: "w.sqlite", seed: 1, iterations: 1, envsPerIteration: 1, plays: 1, hintPlays: 0, maxTurns: 1, backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m" }, corpus: { path: "docs.jsonl" }, training: null };
    writeFileSync(join(folder, "run.json"), JSON.stringify(config));
    const result = spade(["run", "--config", join(folder, "run.json")]);
    const lines = result.stderr.split("\n");
    const notes = lines.flatMap((line, i) => (line.startsWith("note: corpus ") ? [i] : []));
    expect(notes, result.stderr).toHaveLength(2);
    expect(lines[notes[0]!]).toBe(lines[notes[1]!]);
    expect(lines[notes[1]!]).toContain("docs.jsonl:2: field text must be a string, found a number");
    expect(lines[notes[1]!]).toMatch(/docs\.jsonl:3: invalid JSON \(.*\\x00/);
    expect(result.stderr).not.toContain("\u0000");
    // The summary comes after the run's last line.
    expect(notes[1]!).toBeGreaterThan(lines.findIndex((line) => line.startsWith("run 1 failed")));
  }, 120_000);
});
