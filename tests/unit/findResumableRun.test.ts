import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { classifyResumeChanges, describeResumeChange, isResumeSafeKey } from "../../shared/configDiff.js";
import { parseRunConfig } from "../../shared/runConfig.js";
import { findResumableRun } from "../../main/selfplay/findResumableRun.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { createRun, getRun, updateRunConfig, updateRunStatus } from "../../main/store/queries/runs.js";

const config = (extra: Record<string, unknown> = {}, backend: Record<string, unknown> = {}) =>
  parseRunConfig(
    { db: "w.sqlite", seed: 3, iterations: 2, envsPerIteration: 1, plays: 2, hintPlays: 2, maxTurns: 3, backend: { kind: "llama", modelPath: "/m.gguf", ...backend }, corpus: null, ...extra },
    "run.json",
  );

describe("findResumableRun", () => {
  it("finds the newest unfinished run with the same config, whatever LoRA it played with", () => {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), "spade-resume-")), "w.sqlite"));
    const done = createRun(db, { config: config(), seed: 3 });
    updateRunStatus(db, done.id, "completed");
    const paused = createRun(db, { config: config(), seed: 3 });
    updateRunStatus(db, paused.id, "paused");
    createRun(db, { config: config({ seed: 4 }), seed: 4 });

    expect(findResumableRun(db, config())).toEqual({ run: expect.objectContaining({ id: paused.id }), changes: { safe: [], refused: [] }, completed: false });
    const withAdapter = config({}, { lora: [{ path: "/a/run-1-v1.gguf", scale: 1 }] });
    expect(findResumableRun(db, withAdapter)?.changes).toEqual({ safe: [], refused: [] });
    expect(findResumableRun(db, withAdapter)?.run.id).toBe(paused.id);
    // No exact match: the unfinished run with the fewest differing keys, with the differences.
    const closest = findResumableRun(db, config({ plays: 3 }, { contextSize: 8192 }));
    expect(closest?.run.id).toBe(paused.id);
    expect(closest?.changes).toEqual({ safe: [{ key: "backend.contextSize", stored: undefined, given: 8192 }], refused: [{ key: "plays", stored: 2, given: 3 }] });

    updateRunConfig(db, paused.id, withAdapter);
    expect(getRun(db, paused.id)!.config).toEqual(JSON.parse(JSON.stringify(withAdapter)));
    db.close();
  });

  it("names the config's completed run rather than another config's unfinished one", () => {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), "spade-resume-")), "w.sqlite"));
    const older = createRun(db, { config: config(), seed: 3 });
    updateRunStatus(db, older.id, "completed");
    const done = createRun(db, { config: config(), seed: 3 });
    updateRunStatus(db, done.id, "completed");
    const failed = createRun(db, { config: config({ seed: 4 }), seed: 4 });
    updateRunStatus(db, failed.id, "failed", "boom");
    expect(findResumableRun(db, config())).toEqual({ run: expect.objectContaining({ id: done.id }), changes: { safe: [], refused: [] }, completed: true });
    // Another config still finds the closest unfinished run, with its differences.
    expect(findResumableRun(db, config({ seed: 5 }))).toMatchObject({ run: { id: failed.id }, completed: false, changes: { refused: [{ key: "seed", stored: 4, given: 5 }] } });
    db.close();
  });
});

describe("classifyResumeChanges", () => {
  it("lets the model, context, token budgets and time-outs change and refuses the seed, schedule, skills and reward", () => {
    const stored = config();
    const given = config({ seed: 9, iterations: 5, envsPerIteration: 4, designer: { maxTokens: 128, skills: ["Planning"] }, reward: { kind: "regret" }, sandbox: { stepTimeoutMs: 1000 } }, { modelPath: "/other.gguf", contextSize: 2048 });
    const changes = classifyResumeChanges(stored, given);
    expect(changes.safe.map((c) => c.key)).toEqual(["backend.contextSize", "backend.modelPath", "designer.maxTokens", "iterations", "sandbox.stepTimeoutMs"]);
    // skillsPerRegen follows the number of skills (at most one skill here): a schedule key, refused too.
    expect(changes.refused.map((c) => c.key)).toEqual(["designer.skills", "envsPerIteration", "reward.kind", "seed", "skillsPerRegen"]);
    expect(describeResumeChange(changes.safe[0]!)).toBe("backend.contextSize (unset → 2048)");
  });

  it("treats keys it does not know as unsafe and leaves out ignored keys", () => {
    expect(isResumeSafeKey("backend")).toBe(true);
    expect(isResumeSafeKey("backendish")).toBe(false);
    expect(isResumeSafeKey("recipe")).toBe(false);
    expect(isResumeSafeKey("sandbox.playsPerProcess")).toBe(true);
    expect(isResumeSafeKey("sandbox.recycleProcesses")).toBe(true);
    expect(classifyResumeChanges({ a: 1, backend: { lora: [] } }, { a: 2, backend: { lora: [{ path: "x" }] } }, ["backend.lora"])).toEqual({ safe: [], refused: [{ key: "a", stored: 1, given: 2 }] });
  });
});
