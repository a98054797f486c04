import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { readString } from "../../shared/validation/fields.js";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { addEnvSetMembers, createEnvSet, listEnvSets } from "../../main/store/queries/envSets.js";
import { createRun, listRuns } from "../../main/store/queries/runs.js";
import { TextTooLongError } from "../../main/store/TextTooLongError.js";

const baseConfig = { db: "w.sqlite", seed: 1, iterations: 1, envsPerIteration: 1, plays: 4, hintPlays: 4, maxTurns: 5, backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m" }, corpus: null };
const huge = "n".repeat(50 * 1024 * 1024);

let dir: string;
let db: WritableDb;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-bounds-"));
  db = openDatabase(join(dir, "ws.sqlite"));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("free-text bounds", () => {
  it("refuses a 50 MB run name in a config by key, with the bound and the length", () => {
    expect(() => parseRunConfig({ ...baseConfig, name: huge }, "run.json")).toThrow(
      `run.json: name: expected a string of at most 200 characters (it has ${huge.length}), got`,
    );
    expect(parseRunConfig({ ...baseConfig, name: "a".repeat(200) }, "run.json").name).toHaveLength(200);
  });

  it("bounds every config string by default", () => {
    expect(() => readString("run.json", "corpus.path", "p".repeat(5000))).toThrow(/corpus\.path: expected a string of at most 4096 characters \(it has 5000\)/);
    expect(readString("run.json", "designer.set", "x".repeat(5000), { maxLength: 10_000 })).toHaveLength(5000);
  });

  it("never copies an over-long name into the workspace", () => {
    expect(() => createRun(db, { name: huge })).toThrow(TextTooLongError);
    expect(() => createRun(db, { name: huge })).toThrow(`run name: at most 200 characters, got ${huge.length}`);
    expect(() => createEnvSet(db, huge)).toThrow(/environment set name: at most 200 characters/);
    expect(() => addEnvSetMembers(db, huge, [])).toThrow(TextTooLongError);
    expect(listRuns(db)).toEqual([]);
    expect(listEnvSets(db)).toEqual([]);
  });
});
