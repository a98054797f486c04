import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { getAdapter, getAdapterByName, insertAdapter, listAdapters, updateAdapter } from "../../main/store/queries/adapters.js";
import { addEnvSetMembers, deleteEnvSet, getEnvSet, listEnvSetMembers, listEnvSets } from "../../main/store/queries/envSets.js";
import { codeSha256, insertEnvironment } from "../../main/store/queries/environments.js";
import { getEvalResult, insertEvalResult, listEvalResults } from "../../main/store/queries/evalResults.js";
import { getMetrics, putMetrics } from "../../main/store/queries/metrics.js";
import { createRun } from "../../main/store/queries/runs.js";
import { StoreDataError } from "../../main/store/StoreDataError.js";

let dir: string;
let db: WritableDb;
let runId: number;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-store-records-"));
  db = openDatabase(join(dir, "ws.sqlite"));
  runId = createRun(db).id;
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("metrics", () => {
  it("stores numbers, structured values and gaps per iteration", () => {
    putMetrics(db, runId, 1, { validityRate: 0.75, winRateHistogram: { bins: [0, 0.5, 1], counts: [2, 3] }, meanRegret: null, tokens: Number.NaN });
    putMetrics(db, runId, 0, { validityRate: 0.5, novelty: [1, 0] });
    putMetrics(db, runId, 0, { validityRate: 0.6 });
    expect(getMetrics(db, runId)).toEqual([
      { iteration: 0, metrics: { validityRate: 0.6, novelty: [1, 0] } },
      { iteration: 1, metrics: { validityRate: 0.75, winRateHistogram: { bins: [0, 0.5, 1], counts: [2, 3] }, meanRegret: null, tokens: null } },
    ]);
    expect(getMetrics(db, runId + 1)).toEqual([]);
  });

  it("names a corrupted JSON value", () => {
    db.prepare("INSERT INTO metrics (run_id, iteration, name, json) VALUES (?, 0, 'hist', '{oops')").run(runId);
    expect(() => getMetrics(db, runId)).toThrow(StoreDataError);
    expect(() => getMetrics(db, runId)).toThrow(/stored metrics.json \(hist\) is unreadable: invalid JSON/);
  });
});

describe("adapters and evaluation results", () => {
  it("registers adapters with lineage, updates them, and keeps names unique", () => {
    const base = insertAdapter(db, { runId, name: "run1-a0", path: "/adapters/run1-a0.gguf", baseModelSha256: "ab12", manifest: { format: "grpo", counts: { groups: 3 } }, trainerCommand: "python train.py", status: "training" });
    const child = insertAdapter(db, { runId, parentId: base, name: "run1-a1", path: "/adapters/run1-a1.gguf" });
    updateAdapter(db, base, { status: "ready", log: "epoch 1 loss 0.3\n", metrics: { loss: 0.3 } });
    expect(getAdapter(db, base)).toMatchObject({ name: "run1-a0", status: "ready", log: "epoch 1 loss 0.3\n", metrics: { loss: 0.3 }, manifest: { format: "grpo", counts: { groups: 3 } }, trainerCommand: "python train.py" });
    expect(getAdapterByName(db, "run1-a1")).toMatchObject({ id: child, parentId: base, status: "ready", manifest: null });
    expect(listAdapters(db, runId).map((a) => a.id)).toEqual([base, child]);
    expect(listAdapters(db, runId + 1)).toEqual([]);
    expect(() => insertAdapter(db, { name: "run1-a0", path: "/elsewhere.gguf" })).toThrow(/UNIQUE constraint failed: adapters.name/);
  });

  it("stores evaluation results for the base model and for adapters", () => {
    const adapter = insertAdapter(db, { name: "a", path: "/a.gguf" });
    const baseResult = insertEvalResult(db, { suite: "gsm8k", n: 10, correct: 4, accuracy: 0.4, items: [{ index: 0, correct: true }] });
    insertEvalResult(db, { adapterId: adapter, suite: "gsm8k", n: 10, correct: 6, accuracy: 0.6 });
    insertEvalResult(db, { adapterId: adapter, suite: "held-out-envs", n: 5, meanReturn: 0.3, winRate: 0.4 });
    expect(getEvalResult(db, baseResult)).toMatchObject({ adapterId: null, suite: "gsm8k", n: 10, correct: 4, accuracy: 0.4, items: [{ index: 0, correct: true }] });
    expect(listEvalResults(db, { adapterId: null }).map((r) => r.accuracy)).toEqual([0.4]);
    expect(listEvalResults(db, { adapterId: adapter, suite: "held-out-envs" })).toEqual([expect.objectContaining({ meanReturn: 0.3, winRate: 0.4, correct: null })]);
    expect(listEvalResults(db)).toHaveLength(3);
  });
});

describe("environment sets", () => {
  it("adds members once per code and lists them in a stable order", () => {
    const envId = insertEnvironment(db, { source: "import", code: "class BEnv: pass", valid: true });
    expect(addEnvSetMembers(db, "pool", [
      { code: "class BEnv: pass", className: "BEnv", environmentId: envId, hint: "think", skill: "logic", winRate: 0.5, hintWinRate: 0.75, regret: 0.25, source: "run:1" },
      { code: "class AEnv: pass", className: "AEnv", source: "import" },
    ])).toBe(2);
    expect(addEnvSetMembers(db, "pool", [{ code: "class AEnv: pass", className: "AEnv", source: "again" }])).toBe(0);
    expect(getEnvSet(db, "pool")).toMatchObject({ name: "pool", members: 2 });
    const members = listEnvSetMembers(db, "pool");
    expect(members.map((m) => m.className)).toEqual(["AEnv", "BEnv"]);
    expect(members[1]).toEqual({ setName: "pool", codeSha256: codeSha256("class BEnv: pass"), environmentId: envId, className: "BEnv", code: "class BEnv: pass", hint: "think", skill: "logic", winRate: 0.5, hintWinRate: 0.75, regret: 0.25, source: "run:1" });
    addEnvSetMembers(db, "other", []);
    expect(listEnvSets(db).map((s) => [s.name, s.members])).toEqual([
      ["other", 0],
      ["pool", 2],
    ]);
    deleteEnvSet(db, "pool");
    expect(getEnvSet(db, "pool")).toBeNull();
    expect(listEnvSetMembers(db, "pool")).toEqual([]);
  });
});
