// The self-play loop end to end in-process: real sandbox, real SQLite file, scripted model.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRunConfig, type RunConfig } from "../../shared/runConfig.js";
import { openCorpus } from "../../main/corpus/openCorpus.js";
import { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { learningPotential } from "../../main/selfplay/designerReward.js";
import { SelfPlayLoop } from "../../main/selfplay/SelfPlayLoop.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { createEnvSet, addEnvSetMembers } from "../../main/store/queries/envSets.js";
import { getEnvStats } from "../../main/store/queries/envStats.js";
import { listEnvironments } from "../../main/store/queries/environments.js";
import { listEpisodes } from "../../main/store/queries/episodes.js";
import { getHint } from "../../main/store/queries/hints.js";
import { listMemory } from "../../main/store/queries/memory.js";
import { getMetrics } from "../../main/store/queries/metrics.js";
import { createRun, getRun } from "../../main/store/queries/runs.js";
import { ScriptedBackend, requestRole } from "../../main/bench/ScriptedBackend.js";
import { envCode, scriptedHint, selfPlayReply, unhintedWins } from "../support/selfPlayScript.js";

let dir: string;
let pool: SandboxPool;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "spade-loop-"));
  pool = await SandboxPool.create({ size: 2 });
});
afterAll(async () => {
  await pool?.dispose();
});

function corpusOf(name: string, docs: string[]): string {
  const path = join(dir, `${name}.jsonl`);
  writeFileSync(path, docs.map((text) => JSON.stringify({ text })).join("\n") + "\n");
  return path;
}

type Db = ReturnType<typeof openDatabase>;

async function runLoop(name: string, { setup, ...overrides }: Record<string, unknown> & { setup?: (db: Db) => void }, docs: string[] | null) {
  const config: RunConfig = parseRunConfig(
    {
      db: join(dir, `${name}.sqlite`), seed: 7, iterations: 1, envsPerIteration: 1, plays: 4, hintPlays: 4, maxTurns: 3,
      backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "scripted" }, corpus: docs === null ? null : { path: corpusOf(name, docs) }, ...overrides,
    },
    `${name}.json`,
  );
  const db = openDatabase(config.db);
  const run = createRun(db, { config, seed: config.seed });
  const backend = new ScriptedBackend(selfPlayReply, 2);
  const corpus = config.corpus ? await openCorpus(config.corpus.path) : null;
  setup?.(db);
  const outcome = await new SelfPlayLoop(run.id, config, { db, backend, pool, corpus }).run();
  return { db, runId: run.id, config, backend, outcome };
}

describe("the self-play loop", () => {
  it("designs, hints, plays and scores an environment with SPADE's statistics and blend reward", async () => {
    const { db, runId, config, outcome } = await runLoop("magic", { envsPerIteration: 2 }, ["DOC:magic about doors"]);
    expect(outcome).toBe("completed");
    const envs = listEnvironments(db, { runId, orderBy: "id" });
    expect(envs).toHaveLength(2);
    const first = envs[0]!;
    expect(first).toMatchObject({ valid: true, className: "MagicWordEnv", source: "designer", novelty: "novel" });
    expect(getHint(db, first.id)).toMatchObject({ source: "env", text: "Doors like polite, short words." });

    const episodes = listEpisodes(db, first.id);
    expect(episodes.filter((e) => e.canary)).toHaveLength(1);
    const unhinted = episodes.filter((e) => !e.canary && !e.hinted);
    const hinted = episodes.filter((e) => e.hinted);
    expect(unhinted).toHaveLength(4);
    expect(hinted).toHaveLength(4);
    for (const episode of hinted) expect(episode.firstObservation).toContain("\n\nHINT: Doors like polite, short words.");
    for (const episode of unhinted) expect(episode.firstObservation).not.toContain("HINT:");
    const wins = unhinted.filter((e) => unhintedWins(e.firstObservation ?? "")).length;
    for (const episode of unhinted) expect(episode.return).toBe(unhintedWins(episode.firstObservation ?? "") ? 1 : 0);

    const stats = getEnvStats(db, first.id)!;
    expect(stats.winRate).toBe(wins / 4);
    expect(stats.hintWinRate).toBe(1);
    expect(stats.regret).toBeCloseTo(1 - wins / 4);
    const plateau = wins / 4 >= 0.4 && wins / 4 <= 0.6 ? 1 : Math.max(0, 1 - Math.min(Math.abs(wins / 4 - 0.4), Math.abs(wins / 4 - 0.6)) / 0.25);
    expect(stats.designerReward).toBeCloseTo(0.4 * Math.min(1, (1 - wins / 4) / 0.15) + 0.6 * plateau);
    expect(config.reward.kind).toBe("blend");

    // The second slot wrote the same game again: a near-duplicate, kept out of memory.
    expect(envs[1]).toMatchObject({ valid: true, novelty: "duplicate", duplicateOf: first.id });
    expect(listMemory(db, runId, { inMemoryOnly: true }).map((m) => m.environmentId)).toEqual([first.id]);

    const metrics = getMetrics(db, runId)[0]!.metrics;
    expect(metrics.validityRate).toBe(1);
    expect(metrics.noveltyRate).toBe(0.5);
    expect(getRun(db, runId)!.iterationsCompleted).toBe(1);
  });

  it("stores an invalid attempt and repairs it with the validator's error", async () => {
    const { db, runId, backend } = await runLoop("repair", {}, ["DOC:broken text"]);
    const envs = listEnvironments(db, { runId, orderBy: "id" });
    expect(envs.map((e) => [e.attempt, e.source, e.valid])).toEqual([[0, "designer", false], [1, "repair", true]]);
    expect(envs[0]!.validationError).toMatch(/syntax/i);
    expect(envs[1]!.parentId).toBe(envs[0]!.id);
    const repair = backend.calls.find((call) => requestRole(call) === "repair")!;
    expect(repair.messages.at(-1)!.content).toContain(envs[0]!.validationError!);
    expect(getEnvStats(db, envs[0]!.id)).toMatchObject({ plays: 0, designerReward: 0 });
  });

  it("asks the hint writer when the environment has no hint()", async () => {
    const { db, runId } = await runLoop("riddle", {}, ["DOC:riddle numbers"]);
    const env = listEnvironments(db, { runId })[0]!;
    expect(getHint(db, env.id)).toMatchObject({ source: "writer", text: scriptedHint });
    const stats = getEnvStats(db, env.id)!;
    expect(stats.hintMeanReturn).toBe(0.5);
    expect(stats.hintWinRate).toBe(1);
  });

  it("a hanging step() costs the designer -0.5 and the run goes on", async () => {
    const { db, runId, outcome } = await runLoop("hang", { envsPerIteration: 2, sandbox: { stepTimeoutMs: 1000 } }, ["DOC:hang"]);
    expect(outcome).toBe("completed");
    const envs = listEnvironments(db, { runId, orderBy: "id" });
    expect(envs).toHaveLength(2);
    for (const env of envs) {
      expect(getEnvStats(db, env.id)).toMatchObject({ designerReward: -0.5, stepTimeouts: 1 });
      const episodes = listEpisodes(db, env.id);
      expect(episodes).toHaveLength(1); // the canary caught it: no further plays
      expect(episodes[0]!.error).toMatch(/timeout/);
    }
  });

  it.each([
    ["regret", (w: number) => Math.min(1, (1 - w) / 0.15)],
    ["solveRate", (w: number) => (w >= 0.4 && w <= 0.6 ? 1 : Math.max(0, 1 - Math.min(Math.abs(w - 0.4), Math.abs(w - 0.6)) / 0.25))],
    ["azr", (w: number) => (w > 0 ? 1 - w : 0)],
    ["rzero", (w: number) => Math.min(w, 1 - w)],
    ["variance", (w: number) => Math.exp(-((w * (1 - w) - 0.25) ** 2) / 0.02)],
  ])("scores with the %s reward when configured", async (kind, expected) => {
    const { db, runId } = await runLoop(`reward-${kind}`, { reward: { kind }, hintPlays: 2 }, ["DOC:magic"]);
    const env = listEnvironments(db, { runId })[0]!;
    const stats = getEnvStats(db, env.id)!;
    expect(stats.rewardKind).toBe(kind);
    expect(stats.designerReward).toBeCloseTo(expected(stats.winRate!));
  });

  it("the learning-potential reward follows the skill's win rates across environments", async () => {
    const { db, runId } = await runLoop("reward-lp", { envsPerIteration: 2, hintPlays: 2, reward: { kind: "learningPotential" }, designer: { skills: ["Planning"] }, memory: { novelty: false } }, ["DOC:magic"]);
    const [first, second] = listEnvironments(db, { runId, orderBy: "id" }).map((env) => getEnvStats(db, env.id)!);
    expect(first!.designerReward).toBe(0); // one observation: no fast/slow gap yet
    expect(first!.winRate).not.toBe(second!.winRate); // the seeds give different win rates, so the history matters
    expect(second!.designerReward).toBeCloseTo(learningPotential([first!.winRate!, second!.winRate!]));
  });

  it("without corpus or memory the designer prompt has no document and no references", async () => {
    const { backend } = await runLoop("ablate", { iterations: 2, memory: { enabled: false } }, null);
    const prompts = backend.calls.filter((call) => requestRole(call) === "designer").map((call) => call.messages[0]!.content);
    expect(prompts).toHaveLength(2);
    for (const prompt of prompts) {
      expect(prompt).not.toContain("<REFERENCE_DOCUMENT>");
      expect(prompt).not.toContain("<REFERENCE_ENVIRONMENT");
    }
  });

  it("a fixed environment pool makes no designer calls", async () => {
    const setup = (db: Db) => {
      createEnvSet(db, "pool");
      addEnvSetMembers(db, "pool", [{ code: envCode.magic, source: "test", hint: "Say it nicely." }]);
    };
    const { db, runId, backend } = await runLoop("fixed", { designer: { kind: "fixed", set: "pool" }, setup }, null);
    expect(backend.calls.filter((call) => requestRole(call) !== "agent")).toHaveLength(0);
    const env = listEnvironments(db, { runId })[0]!;
    expect(env.source).toBe("fixed");
    expect(getHint(db, env.id)?.text).toBe("Say it nicely.");
    expect(getEnvStats(db, env.id)!.hintWinRate).toBe(1);
  });
});
