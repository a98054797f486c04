import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ValidationReport } from "../../shared/environment.js";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { getDocument, listDocuments, upsertDocument } from "../../main/store/queries/documents.js";
import {
  countEnvironments,
  findAttempt,
  getEnvironment,
  insertEnvironment,
  listChildEnvironments,
  listEnvironments,
  setEnvironmentNovelty,
  type NewEnvironment,
} from "../../main/store/queries/environments.js";
import { getEnvStats, upsertEnvStats } from "../../main/store/queries/envStats.js";
import { getHint, insertHint } from "../../main/store/queries/hints.js";
import { addToMemory, setPinned } from "../../main/store/queries/memory.js";
import { createRun } from "../../main/store/queries/runs.js";

let dir: string;
let db: WritableDb;
let runId: number;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-store-envs-"));
  db = openDatabase(join(dir, "ws.sqlite"));
  runId = createRun(db, { seed: 1 }).id;
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const report: ValidationReport = { valid: true, className: "MazeEnv", checks: [{ name: "reset", ok: true, detail: "ok" }], error: null, durationMs: 12 };

function attempt(fields: Partial<NewEnvironment> = {}): NewEnvironment {
  return { runId, iteration: 0, slot: 0, attempt: 0, source: "designer", code: "class MazeEnv:\n    pass\n", valid: true, className: "MazeEnv", ...fields };
}

describe("environments", () => {
  it("stores every field of an attempt and reads it back, JSON parsed and code hashed", () => {
    upsertDocument(db, { id: "valid.txt:0:abcd1234", corpus: "/c/valid.txt", title: "Lobsters", text: "Lobsters are ...", words: 3 });
    const prompt = [
      { role: "system" as const, content: "You design environments." },
      { role: "user" as const, content: "Document: Lobsters are ..." },
    ];
    const id = insertEnvironment(db, attempt({ documentId: "valid.txt:0:abcd1234", skill: "planning", difficulty: "hard", prompt, rawReply: "```python\n...```", validation: report, tokens: 812 }));
    const env = getEnvironment(db, id)!;
    expect(env).toMatchObject({
      id,
      runId,
      iteration: 0,
      slot: 0,
      attempt: 0,
      parentId: null,
      source: "designer",
      documentId: "valid.txt:0:abcd1234",
      skill: "planning",
      difficulty: "hard",
      prompt,
      rawReply: "```python\n...```",
      code: "class MazeEnv:\n    pass\n",
      className: "MazeEnv",
      valid: true,
      validation: report,
      validationError: null,
      novelty: null,
      tokens: 812,
    });
    expect(env.codeSha256).toBe(createHash("sha256").update("class MazeEnv:\n    pass\n").digest("hex"));
    expect(getEnvironment(db, id + 100)).toBeNull();
  });

  it("stores an attempt without code (no fenced block) and its repair chain", () => {
    const first = insertEnvironment(db, attempt({ code: null, valid: false, className: null, validationError: "no ```python block in the reply" }));
    const repair = insertEnvironment(db, attempt({ attempt: 1, source: "repair", parentId: first }));
    expect(getEnvironment(db, first)).toMatchObject({ code: null, codeSha256: null, valid: false, validationError: "no ```python block in the reply" });
    expect(findAttempt(db, runId, 0, 0, 1)?.id).toBe(repair);
    expect(findAttempt(db, runId, 0, 0, 2)).toBeNull();
    expect(listChildEnvironments(db, first).map((env) => env.id)).toEqual([repair]);
  });

  it("refuses a second row for the same run attempt, but allows edits of it", () => {
    const id = insertEnvironment(db, attempt());
    expect(() => insertEnvironment(db, attempt())).toThrow(/UNIQUE constraint failed/);
    const edit = insertEnvironment(db, { source: "edit", parentId: id, code: "class MazeEnv:\n    x = 1\n", valid: true });
    expect(getEnvironment(db, edit)).toMatchObject({ runId: null, parentId: id, source: "edit" });
  });

  it("records the novelty verdict", () => {
    const a = insertEnvironment(db, attempt());
    const b = insertEnvironment(db, attempt({ slot: 1 }));
    setEnvironmentNovelty(db, a, "novel");
    setEnvironmentNovelty(db, b, "duplicate", a);
    expect(getEnvironment(db, a)).toMatchObject({ novelty: "novel", duplicateOf: null });
    expect(getEnvironment(db, b)).toMatchObject({ novelty: "duplicate", duplicateOf: a });
  });
});

describe("listEnvironments / countEnvironments", () => {
  let ids: number[];
  beforeEach(() => {
    // slot i: valid unless i == 3; win rates and regrets spread out; slot 4 never played.
    const stats = [
      { winRate: 0.1, regret: 0.5 },
      { winRate: 0.5, regret: 0.2 },
      { winRate: 0.9, regret: 0.0 },
      null,
      null,
    ];
    ids = stats.map((_, slot) =>
      insertEnvironment(db, attempt({ slot, iteration: slot < 2 ? 0 : 1, valid: slot !== 3, className: `Game${slot}Env`, code: `class Game${slot}Env: # 100%_sure\n` })),
    );
    stats.forEach((s, slot) => {
      if (s) upsertEnvStats(db, { environmentId: ids[slot]!, plays: 8, hintPlays: 8, winRate: s.winRate, regret: s.regret, designerReward: s.winRate });
    });
    insertEnvironment(db, { source: "import", code: "class ImportedEnv: pass", valid: true, className: "ImportedEnv" });
  });

  it("filters by run, iteration and validity, and counts the same rows", () => {
    expect(listEnvironments(db, { runId }).map((e) => e.id)).toEqual(ids);
    expect(listEnvironments(db, { runId, iteration: 1, valid: true }).map((e) => e.className)).toEqual(["Game2Env", "Game4Env"]);
    expect(countEnvironments(db, { runId, valid: false })).toBe(1);
    expect(listEnvironments(db, { runId: null }).map((e) => e.className)).toEqual(["ImportedEnv"]);
    expect(countEnvironments(db)).toBe(6);
    expect(countEnvironments(db, { source: ["import", "edit"] })).toBe(1);
  });

  it("filters by regret and win-rate bands (inclusive) and joins the statistics", () => {
    expect(listEnvironments(db, { regretMin: 0.15, regretMax: 0.5 }).map((e) => e.className)).toEqual(["Game0Env", "Game1Env"]);
    expect(listEnvironments(db, { winRateMin: 0.15, winRateMax: 0.85 }).map((e) => e.className)).toEqual(["Game1Env"]);
    const [summary] = listEnvironments(db, { winRateMin: 0.5, winRateMax: 0.5 });
    expect(summary).toMatchObject({ plays: 8, hintPlays: 8, winRate: 0.5, regret: 0.2, designerReward: 0.5, inMemory: false, pinned: false });
    expect(summary).not.toHaveProperty("code");
  });

  it("searches class names and code literally (% and _ are not wildcards)", () => {
    expect(countEnvironments(db, { search: "game1" })).toBe(1);
    expect(countEnvironments(db, { search: "100%_sure" })).toBe(5);
    expect(countEnvironments(db, { search: "100%%" })).toBe(0);
    expect(countEnvironments(db, { search: "Imported" })).toBe(1);
  });

  it("orders by a statistic with missing values last, and pages", () => {
    const byRegret = listEnvironments(db, { runId, orderBy: "regret", descending: true }).map((e) => e.className);
    expect(byRegret).toEqual(["Game0Env", "Game1Env", "Game2Env", "Game4Env", "Game3Env"]);
    expect(listEnvironments(db, { runId, orderBy: "winRate", limit: 2, offset: 1 }).map((e) => e.className)).toEqual(["Game1Env", "Game2Env"]);
    expect(() => listEnvironments(db, { orderBy: "colour" as never })).toThrow(/unknown orderBy "colour"/);
  });

  it("filters on memory flags", () => {
    addToMemory(db, { environmentId: ids[0]!, runId, code: "x" });
    addToMemory(db, { environmentId: ids[1]!, runId, code: "y" });
    setPinned(db, ids[1]!, true);
    expect(listEnvironments(db, { inMemory: true }).map((e) => e.id)).toEqual([ids[0], ids[1]]);
    expect(listEnvironments(db, { pinned: true }).map((e) => [e.id, e.pinned, e.inMemory])).toEqual([[ids[1], true, true]]);
    expect(countEnvironments(db, { inMemory: false })).toBe(4);
  });
});

describe("hints, statistics and documents", () => {
  it("stores one hint per environment; a new one replaces it", () => {
    const id = insertEnvironment(db, attempt());
    expect(getHint(db, id)).toBeNull();
    const prompt = [{ role: "user" as const, content: "Write a hint for this code" }];
    const hintId = insertHint(db, { environmentId: id, source: "writer", text: "Map the maze first.", prompt, rawReply: "Hint: Map the maze first." });
    expect(getHint(db, id)).toMatchObject({ id: hintId, source: "writer", text: "Map the maze first.", prompt, rawReply: "Hint: Map the maze first." });
    expect(insertHint(db, { environmentId: id, source: "edit", text: "Go left." })).toBe(hintId);
    expect(getHint(db, id)).toMatchObject({ source: "edit", text: "Go left.", prompt: null, rawReply: null });
  });

  it("upserts environment statistics", () => {
    const id = insertEnvironment(db, attempt());
    upsertEnvStats(db, { environmentId: id, plays: 8, hintPlays: 8, winRate: 0.25, hintWinRate: 0.75, meanReturn: 0.25, hintMeanReturn: 0.75, regret: 0.5, designerReward: 0.7, rewardKind: "blend", stepTimeouts: 1 });
    upsertEnvStats(db, { environmentId: id, plays: 16, hintPlays: 16, winRate: 0.5 });
    expect(getEnvStats(db, id)).toMatchObject({ plays: 16, hintPlays: 16, winRate: 0.5, hintWinRate: null, regret: null, rewardKind: null, stepTimeouts: 0 });
    expect(getEnvStats(db, id + 1)).toBeNull();
  });

  it("stores a document once and lists documents with the environments they grounded", () => {
    const doc = { id: "valid.txt:3:0badf00d", corpus: "/c/valid.txt", title: "Lobsters", text: "The lobster is blue", words: 4 };
    upsertDocument(db, doc);
    upsertDocument(db, { ...doc, text: "changed" });
    expect(getDocument(db, doc.id)).toEqual(doc);
    insertEnvironment(db, attempt({ documentId: doc.id }));
    insertEnvironment(db, attempt({ slot: 1, documentId: doc.id }));
    upsertDocument(db, { id: "other:0:00000000", corpus: "/c/other.jsonl", title: null, text: "unused", words: 1 });
    expect(listDocuments(db, { search: "lobster" })).toEqual([expect.objectContaining({ id: doc.id, environments: 2, words: 4 })]);
    expect(listDocuments(db, { corpus: "/c/other.jsonl" }).map((d) => [d.id, d.environments])).toEqual([["other:0:00000000", 0]]);
    expect(getDocument(db, "nope")).toBeNull();
  });
});
