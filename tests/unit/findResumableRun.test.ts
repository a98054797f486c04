import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
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

    expect(findResumableRun(db, config())?.id).toBe(paused.id);
    const withAdapter = config({}, { lora: [{ path: "/a/run-1-v1.gguf", scale: 1 }] });
    expect(findResumableRun(db, withAdapter)?.id).toBe(paused.id);
    expect(findResumableRun(db, config({ plays: 3 }))).toBeNull();

    updateRunConfig(db, paused.id, withAdapter);
    expect(getRun(db, paused.id)!.config).toEqual(JSON.parse(JSON.stringify(withAdapter)));
    db.close();
  });
});
