// Environment sets (import/export through the built CLI) and run comparison.
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { compareRuns } from "../../main/experiments/compareRuns.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { listEnvSetMembers } from "../../main/store/queries/envSets.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { upsertEnvStats } from "../../main/store/queries/envStats.js";
import { insertHint } from "../../main/store/queries/hints.js";
import { putMetrics } from "../../main/store/queries/metrics.js";
import { createRun } from "../../main/store/queries/runs.js";
import { envCode } from "../support/selfPlayScript.js";

const run = promisify(execFile);
const spade = resolve("out/engine/main/cli/spade.js");
const fixtures = resolve("tests/fixtures/selfplay");
let dir: string;

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [spade, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-sets-"));
});

describe("environment sets", () => {
  it("imports a directory: valid files stored, a broken one rejected with its reason", async () => {
    const source = join(dir, "envs");
    mkdirSync(source);
    copyFileSync(join(fixtures, "magic_word.py"), join(source, "a_magic.py"));
    copyFileSync(join(fixtures, "riddle_no_hint.py"), join(source, "b_riddle.py"));
    writeFileSync(join(source, "c_broken.py"), envCode.broken);
    const db = join(dir, "dir.sqlite");
    const result = await cli(["envs", "import", "--db", db, "--in", source, "--set", "pool", "--json"]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.set).toBe("pool");
    expect(report.imported).toBe(2);
    expect(report.rejected).toHaveLength(1);
    expect(report.rejected[0].name).toBe("c_broken.py");
    expect(report.rejected[0].error).toMatch(/syntax/i);
    // A line per environment as it is validated, on stderr (stdout is the report).
    expect(result.stderr).toMatch(/^\[1\/3\] a_magic\.py: valid \(MagicWordEnv\)\n\[2\/3\] b_riddle\.py: valid \(RiddleEnv\)\n\[3\/3\] c_broken\.py: rejected: [^\n]*syntax[^\n]*\n/i);
    const again = JSON.parse((await cli(["envs", "import", "--db", db, "--in", source, "--set", "pool", "--json"])).stdout);
    expect(again.imported).toBe(0);
    const handle = openDatabase(db, { readonly: true });
    expect(listEnvSetMembers(handle, "pool").map((m) => m.className)).toEqual(["MagicWordEnv", "RiddleEnv"]);
    handle.close();
  });

  it("export then import round-trips the code exactly, and names a bad JSONL line", async () => {
    const db = join(dir, "export.sqlite");
    const handle = openDatabase(db);
    const runRow = createRun(handle, { seed: 1 });
    const envId = insertEnvironment(handle, { runId: runRow.id, iteration: 0, slot: 0, attempt: 0, source: "designer", code: envCode.magic, className: "MagicWordEnv", valid: true, skill: "Planning" });
    insertEnvironment(handle, { runId: runRow.id, iteration: 0, slot: 1, attempt: 0, source: "designer", code: envCode.broken, valid: false });
    upsertEnvStats(handle, { environmentId: envId, plays: 4, hintPlays: 4, winRate: 0.5, hintWinRate: 1, regret: 0.5 });
    insertHint(handle, { environmentId: envId, source: "env", text: "Doors like polite, short words." });
    handle.close();

    const out = join(dir, "envs.jsonl");
    expect((await cli(["envs", "export", "--db", db, "--run", String(runRow.id), "--out", out])).code).toBe(0);
    const lines = readFileSync(out, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    expect(lines).toEqual([{ className: "MagicWordEnv", code: envCode.magic, hint: "Doors like polite, short words.", skill: "Planning", winRate: 0.5, hintWinRate: 1, regret: 0.5, source: `run:${runRow.id}/env:${envId}` }]);

    writeFileSync(out, readFileSync(out, "utf8") + "{not json\n");
    const imported = JSON.parse((await cli(["envs", "import", "--db", join(dir, "other.sqlite"), "--in", out, "--set", "shared", "--json"])).stdout);
    expect(imported.imported).toBe(1);
    expect(imported.rejected).toEqual([{ name: "envs.jsonl:2", error: expect.stringMatching(/not valid JSON/) }]);
    const other = openDatabase(join(dir, "other.sqlite"), { readonly: true });
    const [member] = listEnvSetMembers(other, "shared");
    expect(member!.code).toBe(envCode.magic);
    expect(member!.hint).toBe("Doors like polite, short words.");
    other.close();
  });

  it("refuses bad arguments with exit 2 and a message", async () => {
    const result = await cli(["envs", "export", "--db", join(dir, "nope.sqlite"), "--out", join(dir, "x.jsonl")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/nope\.sqlite does not exist/);
    const filter = await cli(["envs", "export", "--db", join(dir, "export.sqlite"), "--filter", "best", "--out", join(dir, "x.jsonl")]);
    expect(filter.code).toBe(2);
    expect(filter.stderr).toMatch(/--filter expects one of valid, memory, pinned/);
  });
});

describe("compare", () => {
  it("lines up two runs' metrics and names the config keys that differ", async () => {
    const db = join(dir, "compare.sqlite");
    const handle = openDatabase(db);
    const base = { db, seed: 1, iterations: 2, envsPerIteration: 1, plays: 4, hintPlays: 4, maxTurns: 5, backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "scripted" }, corpus: null };
    const a = createRun(handle, { config: parseRunConfig(base, "a"), seed: 1 });
    const b = createRun(handle, { config: parseRunConfig({ ...base, reward: { kind: "regret" }, memory: { enabled: false } }, "b"), seed: 1 });
    putMetrics(handle, a.id, 0, { validityRate: 1, meanRegret: 0.2, meanWinRate: 0.5, designerReward: 0.7, noveltyRate: 1 });
    putMetrics(handle, a.id, 1, { validityRate: 0.5, meanRegret: 0.4, meanWinRate: 0.5, designerReward: 0.9, noveltyRate: null });
    putMetrics(handle, b.id, 0, { validityRate: 1, meanRegret: 0.1, meanWinRate: 0.8, designerReward: 0.6, noveltyRate: 0.5 });
    handle.close();

    const result = await cli(["compare", "--db", db, "--runs", `${a.id},${b.id}`, "--json"]);
    expect(result.code).toBe(0);
    const comparison = JSON.parse(result.stdout);
    expect(comparison.runs.map((r: { id: number }) => r.id)).toEqual([a.id, b.id]);
    expect(comparison.runs[0].iterations.map((i: { meanRegret: number }) => i.meanRegret)).toEqual([0.2, 0.4]);
    expect(comparison.runs[0].summary).toMatchObject({ iterations: 2, validityRate: 0.75, noveltyRate: 1 });
    expect(comparison.runs[0].summary.meanRegret).toBeCloseTo(0.3);
    expect(comparison.runs[1].ablations.filter((badge: string) => !badge.startsWith("deviation: LoRA"))).toEqual(["no corpus", "no memory", "reward: regret"]);
    expect(comparison.configDiff.map((d: { key: string }) => d.key)).toEqual(["memory.enabled", "reward.kind"]);
    const readonly = openDatabase(db, { readonly: true });
    expect(compareRuns(readonly, [a.id]).configDiff).toEqual([]);
    readonly.close();
    expect((await cli(["compare", "--db", db, "--runs", "1,x"])).code).toBe(2);
  });
});
