import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { upsertEnvStats } from "../../main/store/queries/envStats.js";
import { addToMemory, evictOldestUnpinned, getMemoryEntry, listMemory, setBanned, setPinned } from "../../main/store/queries/memory.js";
import { createRun } from "../../main/store/queries/runs.js";

let dir: string;
let db: WritableDb;
let runId: number;
let envs: number[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-store-memory-"));
  db = openDatabase(join(dir, "ws.sqlite"));
  runId = createRun(db).id;
  envs = [0, 1, 2, 3, 4].map((slot) =>
    insertEnvironment(db, { runId, iteration: slot, slot: 0, attempt: 0, source: "designer", code: `class E${slot}Env: pass`, valid: true, skill: "logic" }),
  );
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Adds environment `i` as if at time `addedAt` (the clock is not under test; the order is). */
function add(i: number, addedAt: number, pinned = false): boolean {
  const added = addToMemory(db, { environmentId: envs[i]!, runId, skill: "logic", code: `class E${i}Env: pass`, winRate: 0.5, regret: 0.1 * i, iteration: i, pinned });
  db.prepare("UPDATE memory SET added_at = ? WHERE environment_id = ? AND in_memory = 1").run(addedAt, envs[i]);
  return added;
}
const current = () => listMemory(db, runId, { inMemoryOnly: true }).map((entry) => envs.indexOf(entry.environmentId));

describe("environment memory", () => {
  it("stores entries with the first 2000 characters of the code", () => {
    addToMemory(db, { environmentId: envs[0]!, runId, code: "x".repeat(5000), winRate: 0.4, regret: 0.2, iteration: 0 });
    expect(getMemoryEntry(db, envs[0]!)).toMatchObject({ runId, codeExcerpt: "x".repeat(2000), winRate: 0.4, regret: 0.2, pinned: false, banned: false, inMemory: true, evictedAt: null });
  });

  it("evicts the oldest unpinned entries down to capacity; pinned ones always stay", () => {
    for (let i = 0; i < 5; i++) add(i, 100 + i, i === 0);
    expect(evictOldestUnpinned(db, runId, 10)).toEqual([]);
    expect(evictOldestUnpinned(db, runId, 3)).toEqual([envs[1], envs[2]]);
    expect(current()).toEqual([0, 3, 4]);
    expect(getMemoryEntry(db, envs[1]!)).toMatchObject({ inMemory: false });
    expect(getMemoryEntry(db, envs[1]!)?.evictedAt).toBeGreaterThan(0);
    // Capacity 0: everything unpinned goes; the pinned entry stays above capacity.
    expect(evictOldestUnpinned(db, runId, 0)).toEqual([envs[3], envs[4]]);
    expect(current()).toEqual([0]);
    expect(listMemory(db, runId)).toHaveLength(5);
    expect(() => evictOldestUnpinned(db, runId, -1)).toThrow(/capacity must be a non-negative integer/);
  });

  it("breaks ties in time by iteration, then id", () => {
    for (const i of [3, 1, 2]) add(i, 500);
    expect(evictOldestUnpinned(db, runId, 1)).toEqual([envs[1], envs[2]]);
  });

  it("re-adding an evicted entry makes it the newest", () => {
    add(0, 100);
    add(1, 200);
    evictOldestUnpinned(db, runId, 1);
    expect(current()).toEqual([1]);
    add(0, 300);
    expect(evictOldestUnpinned(db, runId, 1)).toEqual([envs[1]]);
    expect(current()).toEqual([0]);
  });

  it("never re-adds a banned environment, and bans ones never added", () => {
    add(0, 100);
    expect(setBanned(db, envs[0]!, true)).toBe(true);
    expect(getMemoryEntry(db, envs[0]!)).toMatchObject({ banned: true, inMemory: false, pinned: false });
    expect(add(0, 200)).toBe(false);
    expect(current()).toEqual([]);
    upsertEnvStats(db, { environmentId: envs[4]!, plays: 8, hintPlays: 8, winRate: 0.25, regret: 0.3 });
    expect(setBanned(db, envs[4]!, true)).toBe(true);
    expect(getMemoryEntry(db, envs[4]!)).toMatchObject({ banned: true, inMemory: false, skill: "logic", codeExcerpt: "class E4Env: pass", winRate: 0.25, regret: 0.3, iteration: 4 });
    expect(add(4, 300)).toBe(false);
    expect(setBanned(db, 9999, true)).toBe(false);
  });

  it("lifting a ban lets the environment be added again", () => {
    setBanned(db, envs[2]!, true);
    setBanned(db, envs[2]!, false);
    expect(getMemoryEntry(db, envs[2]!)).toMatchObject({ banned: false, inMemory: false });
    expect(add(2, 100)).toBe(true);
    expect(current()).toEqual([2]);
  });

  it("pinning brings an evicted entry back; a banned one stays out", () => {
    add(0, 100);
    add(1, 200);
    evictOldestUnpinned(db, runId, 1);
    expect(setPinned(db, envs[0]!, true)).toBe(true);
    expect(current()).toEqual([1, 0]);
    expect(evictOldestUnpinned(db, runId, 1)).toEqual([envs[1]]);
    setBanned(db, envs[1]!, true);
    expect(setPinned(db, envs[1]!, true)).toBe(true);
    expect(getMemoryEntry(db, envs[1]!)).toMatchObject({ inMemory: false, banned: true });
    expect(setPinned(db, envs[0]!, false)).toBe(true);
    expect(getMemoryEntry(db, envs[0]!)).toMatchObject({ pinned: false, inMemory: true });
    expect(setPinned(db, envs[3]!, true)).toBe(false);
  });

  it("keeps runs' memories apart", () => {
    const other = createRun(db).id;
    const foreign = insertEnvironment(db, { runId: other, iteration: 0, slot: 0, attempt: 0, source: "designer", code: "class F: pass", valid: true });
    addToMemory(db, { environmentId: foreign, runId: other, code: "class F: pass" });
    add(0, 100);
    expect(evictOldestUnpinned(db, runId, 0)).toEqual([envs[0]]);
    expect(listMemory(db, other, { inMemoryOnly: true }).map((entry) => entry.environmentId)).toEqual([foreign]);
  });
});
