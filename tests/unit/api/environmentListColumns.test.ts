// The Environments list's run, skill and memory columns (filters and orders), a set's members
// counted across the runs that played them, and skipped hinted plays on the run page.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Workbench } from "../../../main/api/Workbench.js";
import { addEnvSetMembers } from "../../../main/store/queries/envSets.js";
import { insertEnvironment } from "../../../main/store/queries/environments.js";
import { insertEpisodeWithTurns } from "../../../main/store/queries/episodes.js";
import { createRun } from "../../../main/store/queries/runs.js";
import { putRunNote } from "../../../main/store/queries/schedule.js";
import { checkCall } from "../../../shared/api/methodTable.js";

let dir: string;
let workbench: Workbench;
const ids: Record<string, number> = {};
let runs: number[] = [];
const code = (name: string) => `class ${name}:\n    pass\n`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "spade-envlist-"));
  workbench = Workbench.open({ dbPath: join(dir, "w.sqlite"), runtime: null, runControl: null });
  const db = workbench.db;
  runs = [createRun(db, { config: {}, seed: 1 }).id, createRun(db, { config: {}, seed: 2 }).id];
  const add = (name: string, runId: number, slot: number, skill: string | null) =>
    (ids[name] = insertEnvironment(db, { runId, iteration: 0, slot, attempt: 0, source: "designer", code: code(name), className: name, valid: true, skill }));
  add("Pinned", runs[0]!, 0, "Logical Deduction");
  add("Banned", runs[0]!, 1, "Arithmetic");
  add("Remembered", runs[1]!, 0, "Logical Deduction");
  add("Plain", runs[1]!, 1, null);
  await workbench.api.setMemoryFlags({ envId: ids.Pinned!, pinned: true });
  await workbench.api.setMemoryFlags({ envId: ids.Banned!, banned: true });
  await workbench.api.setMemoryFlags({ envId: ids.Remembered!, inMemory: true });
  putRunNote(db, runs[1]!, 0, `hint skipped ${ids.Plain}`, "the hint prompt does not fit the context (2301 > 2048 tokens)");
});

afterAll(async () => {
  await workbench?.close();
  rmSync(dir, { recursive: true, force: true });
});

type ListFilter = Parameters<Workbench["api"]["listEnvironments"]>[0];
/** The class names the list shows for a filter, checked against the API's input contract first. */
const names = async (filter: ListFilter) => (await workbench.api.listEnvironments(checkCall("listEnvironments", filter).input as ListFilter)).items.map((item) => item.className);

describe("the Environments list's run, skill and memory columns", () => {
  it("carries each row's run, skill, memory flags and skipped-hint reason", async () => {
    const page = await workbench.api.listEnvironments({});
    const byName = new Map(page.items.map((item) => [item.className, item]));
    expect(byName.get("Pinned")).toMatchObject({ runId: runs[0], skill: "Logical Deduction", pinned: true, inMemory: true, banned: false, hintSkipped: null });
    expect(byName.get("Banned")).toMatchObject({ banned: true, pinned: false });
    expect(byName.get("Remembered")).toMatchObject({ runId: runs[1], inMemory: true, pinned: false, banned: false });
    expect(byName.get("Plain")).toMatchObject({ skill: null, inMemory: false, pinned: false, banned: false, hintSkipped: "the hint prompt does not fit the context (2301 > 2048 tokens)" });
  });

  it("filters by memory state and skill", async () => {
    expect(await names({ memory: "pinned" })).toEqual(["Pinned"]);
    expect(await names({ memory: "banned" })).toEqual(["Banned"]);
    expect(await names({ memory: "inMemory" })).toEqual(["Pinned", "Remembered"]);
    expect(await names({ memory: "none" })).toEqual(["Plain"]);
    expect(await names({ skill: "Logical Deduction" })).toEqual(["Pinned", "Remembered"]);
    expect((await workbench.api.listEnvironments({ memory: "pinned" })).total).toBe(1);
  });

  it("sorts by run (newest first), skill and memory state (pinned first)", async () => {
    expect(await names({ order: "run" })).toEqual(["Plain", "Remembered", "Banned", "Pinned"]);
    expect(await names({ order: "skill" })).toEqual(["Banned", "Pinned", "Remembered", "Plain"]);
    expect(await names({ order: "memory" })).toEqual(["Pinned", "Remembered", "Banned", "Plain"]);
  });

  it("refuses a memory state or order it does not know, naming the value", () => {
    expect(() => checkCall("listEnvironments", { memory: "forgotten" })).toThrow(/memory/);
    expect(() => checkCall("listEnvironments", { order: "colour" })).toThrow(/order/);
  });

  it("lists the run's skipped hinted plays with their reason on the run page", async () => {
    expect((await workbench.api.getRun({ runId: runs[1]! })).hintsSkipped).toEqual([{ environmentId: ids.Plain, reason: "the hint prompt does not fit the context (2301 > 2048 tokens)" }]);
    expect((await workbench.api.getRun({ runId: runs[0]! })).hintsSkipped).toEqual([]);
  });
});

describe("a set's members across runs", () => {
  it("counts every play of a member's code in every run, the canary included as the environment page counts it", async () => {
    const db = workbench.db;
    const member = code("Pinned");
    addEnvSetMembers(db, "pool", [
      { code: member, source: "run:1", environmentId: ids.Pinned!, className: "Pinned", winRate: 0.9, hintWinRate: 0.9, regret: 0 },
      { code: code("NeverPlayed"), source: "import", className: "NeverPlayed", winRate: 0.4, hintWinRate: null, regret: null },
    ]);
    // Two fixed-pool runs drew the member: each stored its own copy of the code and played it.
    const copies = runs.map((runId, i) => insertEnvironment(db, { runId, iteration: 1, slot: 0, attempt: 0, source: "fixed", code: member, className: "Pinned", valid: true, skill: `draw ${i}` }));
    const play = (environmentId: number, runId: number, hinted: boolean, playIndex: number, ret: number, canary = false) =>
      insertEpisodeWithTurns(db, { runId, environmentId, hinted, playIndex, return: ret, canary }, []);
    play(ids.Pinned!, runs[0]!, false, 0, 1);
    play(copies[0]!, runs[0]!, false, 1, 0);
    play(copies[0]!, runs[0]!, true, 0, 1);
    play(copies[1]!, runs[1]!, false, 0, 1);
    play(copies[1]!, runs[1]!, false, 1, -1);
    play(copies[1]!, runs[1]!, true, 0, 0);
    play(copies[1]!, runs[1]!, false, 2, 1, true); // the canary counts, as in the environment's own statistics
    const set = await workbench.api.getEnvSet({ name: "pool" });
    const pinned = set.items.find((item) => item.className === "Pinned")!;
    // By hand: unhinted returns 1, 0, 1, -1, 1 (3 wins of 5, mean 0.4); hinted 1, 0 (mean 0.5); regret 0.5 - 0.4.
    expect(pinned.played).toEqual({ runs: 2, plays: 5, hintPlays: 2, winRate: 0.6, hintWinRate: 0.5, meanReturn: 0.4, hintMeanReturn: 0.5, regret: expect.closeTo(0.1, 12) });
    expect(set.items.find((item) => item.className === "NeverPlayed")!.played).toBeNull();
  });
});
