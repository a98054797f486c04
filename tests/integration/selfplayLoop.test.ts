// The self-play loop end to end in-process: real sandbox, real SQLite file, scripted model, on the
// reference recipe's schedule (rollouts, regenerations, replays, delayed designer reward).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRunConfig, type RunConfig } from "../../shared/runConfig.js";
import { recipeGameSkills as gameSkills } from "../../shared/skills.js";
import type { ChatMessage } from "../../shared/llm.js";
import { openCorpus } from "../../main/corpus/openCorpus.js";
import type { ChatRequest } from "../../main/llm/LlmBackend.js";
import { PromptTooLongError } from "../../main/llm/PromptTooLongError.js";
import { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { plateauScore } from "../../main/selfplay/designerReward.js";
import type { LoopEvent } from "../../main/selfplay/LoopEvent.js";
import { SelfPlayLoop } from "../../main/selfplay/SelfPlayLoop.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { createEnvSet, addEnvSetMembers } from "../../main/store/queries/envSets.js";
import { getEnvStats } from "../../main/store/queries/envStats.js";
import { getEnvironment, listEnvironments } from "../../main/store/queries/environments.js";
import { getTurns, listEpisodes } from "../../main/store/queries/episodes.js";
import { getHint } from "../../main/store/queries/hints.js";
import { listMemory } from "../../main/store/queries/memory.js";
import { getMetrics } from "../../main/store/queries/metrics.js";
import { createRun, getRun } from "../../main/store/queries/runs.js";
import { getDesignerAdvantage, listRunNotes, listScheduledPlays } from "../../main/store/queries/schedule.js";
import { ScriptedBackend, requestRole } from "../../main/bench/ScriptedBackend.js";
import type { PlayMark, PlayTrace } from "../../main/rollout/PlayTrace.js";
import { envCode, scriptedHint, selfPlayReply } from "../support/selfPlayScript.js";

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

interface LoopOptions {
  setup?: (db: Db) => void;
  trace?: PlayTrace;
  backend?: ScriptedBackend;
  onEvent?: (event: LoopEvent, db: Db) => void;
  validationConcurrency?: number;
}

async function runLoop(name: string, overrides: Record<string, unknown>, docs: string[] | null, options: LoopOptions = {}) {
  const config: RunConfig = parseRunConfig(
    {
      db: join(dir, `${name}.sqlite`), seed: 7, iterations: 1, envsPerIteration: 1, plays: 4, hintPlays: 4, maxTurns: 3,
      backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "scripted" }, corpus: docs === null ? null : { path: corpusOf(name, docs) }, ...overrides,
    },
    `${name}.json`,
  );
  const db = openDatabase(config.db);
  const run = createRun(db, { config, seed: config.seed });
  const backend = options.backend ?? new ScriptedBackend(selfPlayReply, 2);
  const corpus = config.corpus ? await openCorpus(config.corpus.path) : null;
  options.setup?.(db);
  const outcome = await new SelfPlayLoop(run.id, config, { db, backend, pool, corpus, onEvent: (event) => options.onEvent?.(event, db), ...(options.trace ? { trace: options.trace } : {}), ...(options.validationConcurrency === undefined ? {} : { validationConcurrency: options.validationConcurrency }) }).run();
  return { db, runId: run.id, config, backend, outcome };
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

describe("the self-play loop on the reference schedule", () => {
  it("designs a batch once, replays it every rollout, hints once, and scores it after the proposer delay", async () => {
    const rewardsSeen: (number | null)[] = [];
    const { db, runId, config, backend, outcome } = await runLoop("schedule", { iterations: 3, envsPerIteration: 2 }, ["DOC:magic about doors"], {
      onEvent: (event, db) => {
        if (event.type === "iterationCompleted") rewardsSeen.push(getEnvStats(db, listEnvironments(db, { runId: event.runId })[0]!.id)!.designerReward);
      },
    });
    expect(outcome).toBe("completed");
    // One regeneration (rollout 0): two designer calls, one hint call per game, no designing in rollouts 1 and 2.
    expect(backend.calls.filter((call) => requestRole(call) === "designer")).toHaveLength(2);
    expect(backend.calls.filter((call) => requestRole(call) === "hint")).toHaveLength(2);
    const envs = listEnvironments(db, { runId, orderBy: "slot" });
    expect(envs.map((env) => [env.iteration, env.slot, env.skill, env.difficulty])).toEqual([[0, 0, gameSkills[0], "medium"], [0, 1, gameSkills[1], "medium"]]);
    // The delay (4, capped by the run's 3 rollouts) passes at the end of rollout 2: no reward before.
    expect(rewardsSeen.slice(0, 2)).toEqual([null, null]);
    expect(rewardsSeen[2]).not.toBeNull();

    for (const env of envs) {
      expect(getHint(db, env.id)).toMatchObject({ source: "writer", text: scriptedHint }); // the env's own hint() is a deviation, off
      const plays = listScheduledPlays(db, env.id);
      const unhinted = plays.filter((p) => !p.hinted);
      const hinted = plays.filter((p) => p.hinted);
      // Each rollout: 4 unhinted plays, the canary being one of them; hinted plays only in rollout 0.
      for (const rollout of [0, 1, 2]) {
        const these = unhinted.filter((p) => p.rollout === rollout);
        expect(these).toHaveLength(4);
        expect(these.filter((p) => p.canary)).toHaveLength(1);
      }
      expect(hinted.map((p) => p.rollout)).toEqual([0, 0, 0, 0]);

      // The designer reward by hand: matched-timing regret (rollout 0's unhinted mean), plateau on the window's mean return.
      const stats = getEnvStats(db, env.id)!;
      const first = mean(unhinted.filter((p) => p.rollout === 0).map((p) => p.return));
      const windowMean = mean(unhinted.map((p) => p.return));
      const regret = mean(hinted.map((p) => p.return)) - first;
      const blend = 0.4 * Math.min(1, Math.max(0, regret / 0.15)) + 0.6 * plateauScore(windowMean, [0.4, 0.6], 0.25);
      expect(stats.designerReward).toBeCloseTo(blend, 9);
      expect(stats.plays).toBe(12);
      expect(stats.meanReturn).toBeCloseTo(windowMean, 9);
      expect(stats.winRate).toBeCloseTo(unhinted.filter((p) => p.return > 0).length / 12, 9);
      expect(stats.regret).toBeCloseTo(Math.max(0, regret), 9);
    }
    // Different skills: each game is alone in its skill, so its centred advantage is 0 (x 32).
    for (const env of envs) expect(getDesignerAdvantage(db, env.id)).toMatchObject({ advantage: 0, masked: false });
    // Memory: both games (no novelty gate in the recipe), with the regeneration rollout's win rate (as the reference) and signed regret.
    const memory = listMemory(db, runId, { inMemoryOnly: true });
    expect(memory.map((m) => m.environmentId).sort()).toEqual(envs.map((e) => e.id).sort());
    const firstRollout = listScheduledPlays(db, memory[0]!.environmentId).filter((p) => !p.hinted && p.rollout === 0);
    expect(memory[0]!.winRate).toBe(firstRollout.filter((p) => p.return > 0).length / firstRollout.length);
    expect(getMetrics(db, runId).map((m) => m.metrics.regeneration)).toEqual([1, 0, 0]);
    expect(getRun(db, runId)!.iterationsCompleted).toBe(config.iterations);
  });

  it("re-samples an invalid attempt independently with a fresh document; repair turns are a deviation", async () => {
    const flaky = () => {
      let designerCalls = 0;
      return new ScriptedBackend((request) => {
        if (requestRole(request) === "designer" && designerCalls++ === 0) return "```python\n" + envCode.broken + "```\n";
        return selfPlayReply(request);
      }, 1);
    };
    const { db, runId, backend } = await runLoop("resample", {}, ["DOC:magic one", "DOC:magic two", "DOC:magic three"], { backend: flaky() });
    const envs = listEnvironments(db, { runId, orderBy: "id" }).map((e) => getEnvironment(db, e.id)!);
    expect(envs.map((e) => [e.attempt, e.source, e.valid, e.parentId])).toEqual([[0, "designer", false, null], [1, "designer", true, null]]);
    expect(envs[0]!.validationError).toMatch(/syntax/i);
    const designerPrompts = backend.calls.filter((call) => requestRole(call) === "designer");
    expect(designerPrompts).toHaveLength(2);
    for (const call of designerPrompts) expect(call.messages.some((m) => m.role === "assistant")).toBe(false); // no repair turn
    expect(getEnvStats(db, envs[0]!.id)).toMatchObject({ plays: 0, designerReward: 0 });

    const repaired = await runLoop("repair", { designer: { repair: true } }, ["DOC:magic doors"], { backend: flaky() });
    const attempts = listEnvironments(repaired.db, { runId: repaired.runId, orderBy: "id" });
    expect(attempts.map((e) => [e.attempt, e.source, e.valid])).toEqual([[0, "designer", false], [1, "repair", true]]);
    const repair = repaired.backend.calls.find((call) => requestRole(call) === "repair")!;
    expect(repair.messages.at(-1)!.content).toContain(attempts[0]!.validationError!);
  });

  it("repairs f-string braces in a reply whose code does not parse, as the reference does", async () => {
    // An f-string line of its own with an action placeholder in single braces: a syntax error.
    const unbalanced = envCode.magic.replace("        self.turn = 0\n        return", "        self.turn = 0\n        self.format = f\"Answer as \\\\boxed{<word>}\"\n        return");
    expect(unbalanced).not.toBe(envCode.magic);
    const backend = new ScriptedBackend((request) => (requestRole(request) === "designer" ? "```python\n" + unbalanced + "```\n" : selfPlayReply(request)), 2);
    const { db, runId } = await runLoop("braces", {}, ["DOC:magic"], { backend });
    const env = getEnvironment(db, listEnvironments(db, { runId })[0]!.id)!;
    expect([env.valid, env.validationError]).toEqual([true, null]);
    expect(env.code).toContain("\\\\boxed{{<word>}}");
  });

  it("the environment's own hint() is used only with the deviation key", async () => {
    const { db, runId } = await runLoop("own-hint", { hint: { useEnvHint: true } }, ["DOC:magic"]);
    expect(getHint(db, listEnvironments(db, { runId })[0]!.id)).toMatchObject({ source: "env", text: "Doors like polite, short words." });
    const riddle = await runLoop("riddle", { hint: { useEnvHint: true } }, ["DOC:riddle numbers"]);
    const env = listEnvironments(riddle.db, { runId: riddle.runId })[0]!;
    expect(getHint(riddle.db, env.id)).toMatchObject({ source: "writer", text: scriptedHint });
    expect(getEnvStats(riddle.db, env.id)).toMatchObject({ hintMeanReturn: 0.5, hintWinRate: 1 });
  });

  it("an environment's own hint earns nothing it cannot prove: a solution() that does not solve the game, or a hint that reveals it, gets the writer's hint", async () => {
    const liar = await runLoop("liar", { hint: { useEnvHint: true } }, ["DOC:liar"]);
    const env = getEnvironment(liar.db, listEnvironments(liar.db, { runId: liar.runId })[0]!.id)!;
    expect(env.valid).toBe(true);
    expect(env.validation?.solutionPlay).toMatchObject({ solves: false });
    expect(getHint(liar.db, env.id)).toMatchObject({ source: "writer", text: scriptedHint });
    expect(listRunNotes(liar.db, liar.runId).map((note) => note.text).join("\n")).toMatch(/own hint\(\) of environment \d+ is not used: its solution\(\) does not verifiably solve the game/);
    const honest = await runLoop("honest", { hint: { useEnvHint: true } }, ["DOC:magic"]);
    const magic = getEnvironment(honest.db, listEnvironments(honest.db, { runId: honest.runId })[0]!.id)!;
    expect(magic.validation?.solutionPlay).toMatchObject({ solves: true });
    const revealing = await runLoop("revealing", { hint: { useEnvHint: true } }, ["DOC:revealing"]);
    const shown = getEnvironment(revealing.db, listEnvironments(revealing.db, { runId: revealing.runId })[0]!.id)!;
    expect(shown.validation?.solutionPlay).toMatchObject({ solves: true });
    expect(getHint(revealing.db, shown.id)).toMatchObject({ source: "writer", text: scriptedHint });
    expect(listRunNotes(revealing.db, revealing.runId).map((note) => note.text).join("\n")).toMatch(/is not used: it reveals the solution/);
  });

  it("games designed at the same moment are validated validationConcurrency at a time: the first is valid and plays while the others wait", async () => {
    const seen: string[] = [];
    const record = (event: LoopEvent) => {
      if (event.type === "slotPhase" && (event.phase === "validating" || event.phase === "playing")) seen.push(`${event.phase} ${event.slot}`);
      if (event.type === "environmentAdded") seen.push(`added ${event.slot}`);
    };
    // Three designer calls answered together (the backend takes them all at once).
    const backend = new ScriptedBackend(selfPlayReply, 4);
    const { outcome } = await runLoop("validation-turns", { envsPerIteration: 3, plays: 2, hintPlays: 0 }, ["DOC:magic about doors"], { backend, onEvent: record, validationConcurrency: 1 });
    expect(outcome).toBe("completed");
    const validating = seen.filter((entry) => entry.startsWith("validating"));
    expect(validating).toHaveLength(3);
    const slotOf = (entry: string) => entry.split(" ")[1];
    // One at a time: the third validation starts only after the first game was stored (the second
    // starts as the first ends, just before its store); all at once, all three would start first.
    expect(seen.indexOf(`added ${slotOf(validating[0]!)}`)).toBeLessThan(seen.indexOf(validating[2]!));
    // And the first game's plays start before the last game's validation.
    expect(seen.indexOf(`playing ${slotOf(validating[0]!)}`)).toBeLessThan(seen.indexOf(validating[2]!));
  });

  it("the canary leads the game's other plays: they start once its reset answered, and take each step only after it took it", async () => {
    const marks: Array<{ play: string; mark: PlayMark }> = [];
    // The canary's answers come late: the other plays are asked meanwhile, and their steps must wait for the canary's.
    const backend = new ScriptedBackend(async (request) => {
      if (request.routingKey?.endsWith("-canary")) await new Promise((resolve) => setTimeout(resolve, 1500));
      return selfPlayReply(request);
    }, 4);
    const { db, runId, outcome } = await runLoop("lead", { plays: 4, hintPlays: 0 }, ["DOC:magic about doors"], { backend, trace: (play, mark) => marks.push({ play, mark }) });
    expect(outcome).toBe("completed");
    const order = (play: string, mark: PlayMark, nth = 1) => marks.map((entry, index) => (entry.play === play && entry.mark === mark ? index : -1)).filter((index) => index >= 0)[nth - 1] ?? -1;
    const plays = [...new Set(marks.map((entry) => entry.play))];
    const canary = plays.find((play) => play.endsWith("-canary"))!;
    const others = plays.filter((play) => play !== canary);
    expect(canary).toBeDefined();
    expect(others).toHaveLength(3);
    const canarySteps = marks.filter((entry) => entry.play === canary && entry.mark === "stepped").length;
    expect(canarySteps).toBeGreaterThan(0);
    for (const play of others) {
      // Started before the canary ended: asked while the canary's first answer was still coming.
      expect(order(play, "asking")).toBeGreaterThan(order(canary, "observed"));
      expect(order(play, "asking")).toBeLessThan(order(canary, "answered"));
      // Each of its steps after the canary's step of the same turn (or after the canary's end).
      const steps = marks.filter((entry) => entry.play === play && entry.mark === "stepped").length;
      expect(steps).toBeGreaterThan(0);
      for (let turn = 1; turn <= steps; turn++) expect(order(play, "stepped", turn)).toBeGreaterThan(turn <= canarySteps ? order(canary, "stepped", turn) : order(canary, "stepped", canarySteps));
    }
    const env = listEnvironments(db, { runId, orderBy: "id" }).find((candidate) => candidate.valid)!;
    expect(listEpisodes(db, env.id).filter((episode) => !episode.hinted)).toHaveLength(4);
  });

  it("a hanging step() is caught by the canary; the blend has no timeout term unless the deviation asks", async () => {
    const { db, runId, outcome } = await runLoop("hang", { envsPerIteration: 2, sandbox: { stepTimeoutMs: 1000 } }, ["DOC:hang"]);
    expect(outcome).toBe("completed");
    const envs = listEnvironments(db, { runId, orderBy: "id" });
    for (const env of envs) {
      const plays = listScheduledPlays(db, env.id);
      expect(plays).toHaveLength(1); // the canary caught it: no further plays
      expect(plays[0]!.error).toMatch(/timeout/);
      expect(getEnvStats(db, env.id)).toMatchObject({ stepTimeouts: 1, designerReward: 0 });
    }
    const penalised = await runLoop("hang-penalty", { sandbox: { stepTimeoutMs: 1000 }, reward: { timeoutInBlend: true } }, ["DOC:hang"]);
    expect(getEnvStats(penalised.db, listEnvironments(penalised.db, { runId: penalised.runId })[0]!.id)!.designerReward).toBe(-0.5);
  });

  it("a hung game is dropped from the rollouts after its hang, and the other games' plays are recomputed", async () => {
    // Seed 2 designs one hanging game and one magic-word game from the two documents (checked below).
    const { db, runId, outcome } = await runLoop(
      "hung-drop",
      { seed: 2, iterations: 2, regenerationInterval: 2, reward: { proposerDelay: 2 }, envsPerIteration: 2, plays: null, actorBatch: 4, hintPlays: 0, sandbox: { stepTimeoutMs: 1000 } },
      ["DOC:hang", "DOC:magic"],
    );
    expect(outcome).toBe("completed");
    const envs = listEnvironments(db, { runId, orderBy: "id" }).filter((env) => env.valid);
    const hung = envs.find((env) => env.className === "HangingEnv")!;
    const other = envs.find((env) => env.className !== "HangingEnv")!;
    expect(hung && other).toBeTruthy();
    const unhinted = (envId: number, rollout: number) => listScheduledPlays(db, envId).filter((play) => !play.hinted && play.rollout === rollout);
    // Rollout 0: 2 valid games, ceil(4 / 2) = 2 plays each; the hanging game's canary timed out and stopped it.
    expect(unhinted(hung.id, 0)).toHaveLength(1);
    expect(unhinted(other.id, 0)).toHaveLength(2);
    // Rollout 1: the hung game is not selected (the reference's blacklist), the other gets ceil(4 / 1) = 4 plays.
    expect(unhinted(hung.id, 1)).toHaveLength(0);
    expect(unhinted(other.id, 1)).toHaveLength(4);
    expect(new Set(unhinted(other.id, 1).map((play) => play.playIndex)).size).toBe(4);
  });

  it("a play the infrastructure failed is played once more; only the retry is stored, with a note", async () => {
    let failed = 0;
    const backend = new ScriptedBackend((request) => {
      if (requestRole(request) === "agent" && failed === 0) {
        failed++;
        throw new Error("connection reset by peer");
      }
      return selfPlayReply(request);
    }, 2);
    const { db, runId, outcome } = await runLoop("retry", { hintPlays: 0 }, ["DOC:magic"], { backend });
    expect(outcome).toBe("completed");
    expect(failed).toBe(1);
    const [env] = listEnvironments(db, { runId });
    const plays = listScheduledPlays(db, env!.id);
    expect(plays).toHaveLength(4);
    expect(plays.every((play) => play.error === null)).toBe(true);
    expect(listRunNotes(db, runId).filter((note) => note.kind === "play retried").map((note) => note.text)).toEqual([expect.stringMatching(/connection reset by peer \(played once more/)]);
  });

  it("a hint writer that keeps failing gives no hint after three tries: no hinted plays, regret 0, the run goes on", async () => {
    const backend = new ScriptedBackend((request) => {
      if (requestRole(request) === "hint") throw new Error("502 bad gateway");
      return selfPlayReply(request);
    }, 2);
    const { db, runId, outcome } = await runLoop("hint-down", {}, ["DOC:magic"], { backend });
    expect(outcome).toBe("completed");
    expect(backend.calls.filter((request) => requestRole(request) === "hint")).toHaveLength(3);
    const [env] = listEnvironments(db, { runId });
    expect(listScheduledPlays(db, env!.id).filter((play) => play.hinted)).toEqual([]);
    expect(getEnvStats(db, env!.id)!.regret).toBe(0);
    expect(listRunNotes(db, runId).map((note) => note.text)).toContainEqual(expect.stringMatching(/hint writer failed 3 times \(502 bad gateway\); its hinted plays are skipped and its regret is 0/));
  });

  it("without corpus or memory the designer prompt has no document and no references", async () => {
    const { backend } = await runLoop("ablate", { iterations: 2, regenerationInterval: 1, memory: { enabled: false } }, null);
    const prompts = backend.calls.filter((call) => requestRole(call) === "designer").map((call) => call.messages[0]!.content);
    expect(prompts).toHaveLength(2);
    for (const prompt of prompts) {
      expect(prompt).not.toContain("<REFERENCE_DOCUMENT>");
      expect(prompt).not.toContain("<REFERENCE_ENVIRONMENT");
    }
  });

  it("a fixed environment pool makes no designer calls and deals games without replacement", async () => {
    const setup = (db: Db) => {
      createEnvSet(db, "pool");
      addEnvSetMembers(db, "pool", [
        { code: envCode.magic, source: "test", hint: "Say it nicely." },
        { code: envCode.riddle, source: "test", hint: "Half is fine." },
        { code: envCode.copy, source: "test", hint: "Say it nicely." },
      ]);
    };
    const { db, runId, backend } = await runLoop("fixed", { iterations: 2, envsPerIteration: 2, plays: 2, hintPlays: 1, designer: { kind: "fixed", set: "pool" } }, null, { setup });
    expect(backend.calls.filter((call) => requestRole(call) !== "agent")).toHaveLength(0);
    // Slots of a rollout are drawn at once: order by coordinates, not by row id.
    const envs = listEnvironments(db, { runId, orderBy: "id" }).map((e) => getEnvironment(db, e.id)!).sort((a, b) => a.iteration! - b.iteration! || a.slot! - b.slot!);
    expect(envs.map((e) => [e.iteration, e.source])).toEqual([[0, "fixed"], [0, "fixed"], [1, "fixed"], [1, "fixed"]]);
    expect(new Set(envs.slice(0, 3).map((e) => e.code)).size).toBe(3); // the whole pool before any repeat
    expect(getHint(db, envs[0]!.id)?.source).toBe("import");
    expect(getEnvStats(db, envs[0]!.id)!.designerReward).toBeNull();
  });

  it("a game's own max_turns is capped at the run's maxTurns, and a class that requires max_turns is built with it (the reference's training plays)", async () => {
    const game = (name: string, init: string) =>
      `class ${name}Env:\n${init}\n    def reset(self, seed=None):\n        self.turn = 0\n        return f"Say \\\\boxed{{word}}. limit {self.max_turns}", {}\n\n    def step(self, action):\n        self.turn += 1\n        return f"turn {self.turn} of {self.max_turns}", 0.0, False, self.turn >= self.max_turns, {}\n`;
    const setup = (db: Db) => {
      createEnvSet(db, "turns");
      addEnvSetMembers(db, "turns", [
        { code: game("LongDefault", "    def __init__(self, max_turns=100):\n        self.max_turns = max_turns"), source: "test", hint: "Any word." },
        { code: game("NeedsTurns", "    def __init__(self, max_turns):\n        self.max_turns = max_turns"), source: "test", hint: "Any word." },
      ]);
    };
    const { db, runId, config } = await runLoop("own-max-turns", { envsPerIteration: 2, plays: 2, hintPlays: 1, designer: { kind: "fixed", set: "turns" } }, null, { setup });
    expect(config.maxTurns).toBe(3);
    const envs = listEnvironments(db, { runId }).map((e) => getEnvironment(db, e.id)!);
    expect(envs.map((e) => [e.valid, e.validationError])).toEqual([[true, null], [true, null]]);
    for (const env of envs) {
      const episodes = listEpisodes(db, env.id);
      expect(episodes.length).toBeGreaterThan(0);
      for (const episode of episodes) {
        expect(episode.error).toBeNull();
        const turns = getTurns(db, episode.id);
        expect(turns.map((turn) => turn.observation)).toEqual(["turn 1 of 3", "turn 2 of 3", "turn 3 of 3"]);
        expect(turns[2]!.truncated).toBe(true);
      }
    }
  });

  it("the tool-use recipe runs end to end: tool-use designer prompt, tool environments designed, hinted and played", async () => {
    const warehouse = readFileSync(fileURLToPath(new URL("../../resources/environments/warehouse_tools.py", import.meta.url)), "utf8");
    const backend = new ScriptedBackend((request) => {
      const role = requestRole(request);
      if (role === "designer" || role === "repair") return "```python\n" + warehouse + "```\n";
      if (role === "hint") return "Find the accounts first, then add their balances.";
      return "<answer>0</answer>";
    }, 2);
    const { db, runId, config, outcome } = await runLoop("tool-use", { recipe: "spade-tool-use", envsPerIteration: 2, plays: 2, hintPlays: 1 }, ["A warehouse keeps stock of parts."], { backend });
    expect(outcome).toBe("completed");
    expect(config).toMatchObject({ regenerationInterval: 8, designer: { toolUse: true } });
    const envs = listEnvironments(db, { runId, orderBy: "id" }).sort((a, b) => a.slot! - b.slot!);
    expect(envs.map((env) => [env.valid, env.skill, env.validationError])).toEqual([[true, config.designer.skills[0], null], [true, config.designer.skills[1], null]]);
    const designerPrompt = backend.calls.find((call) => requestRole(call) === "designer")!;
    expect(designerPrompt.messages.map((m) => m.role)).toEqual(["user"]); // the reference sends no system prompt for tool use
    expect(designerPrompt.messages[0]!.content).toContain("A warehouse keeps stock of parts.");
    for (const env of envs) {
      const plays = listScheduledPlays(db, env.id);
      expect(plays.filter((p) => !p.hinted)).toHaveLength(2);
      expect(plays.filter((p) => p.hinted)).toHaveLength(1);
      expect(plays.every((p) => p.error === null)).toBe(true);
      expect(getEnvStats(db, env.id)!.designerReward).not.toBeNull(); // one rollout: the window ends with the run
    }
  });

  it("context is never a crash: the document is trimmed to fit, a prompt that cannot fit is an invalid attempt or an errored play", async () => {
    // A backend that counts 4 characters a token and refuses what does not fit, like the real ones.
    const tokens = (messages: ChatMessage[]) => Math.ceil(messages.reduce((n, m) => n + m.content.length, 0) / 4);
    const sized = (contextSize: number) => {
      const backend = new ScriptedBackend(selfPlayReply, 2) as ScriptedBackend & { contextSize: number; countTokens(m: ChatMessage[]): Promise<number> };
      const chat = backend.chat.bind(backend);
      backend.contextSize = contextSize;
      backend.countTokens = async (messages) => tokens(messages);
      backend.chat = async (request: ChatRequest) => {
        if (tokens(request.messages) > contextSize) throw new PromptTooLongError(tokens(request.messages), contextSize);
        return chat(request);
      };
      return backend;
    };
    const longDoc = "DOC:magic " + Array.from({ length: 3000 }, (_, i) => `word${i}`).join(" ");
    const probe = sized(1_000_000);
    await runLoop("fits-probe", { designer: { maxTokens: 100 } }, ["DOC:magic"], { backend: probe });
    const basePrompt = tokens(probe.calls.find((call) => requestRole(call) === "designer")!.messages);
    const events: LoopEvent[] = [];
    const trimmed = await runLoop("fits", { designer: { maxTokens: 100 } }, [longDoc], { backend: sized(basePrompt + 400), onEvent: (event) => events.push(event) });
    expect(trimmed.outcome).toBe("completed");
    const env = getEnvironment(trimmed.db, listEnvironments(trimmed.db, { runId: trimmed.runId })[0]!.id)!;
    expect(env.valid).toBe(true);
    expect(tokens(env.prompt!)).toBeLessThanOrEqual(basePrompt + 300);
    expect(listRunNotes(trimmed.db, trimmed.runId)[0]!.text).toMatch(/grounding document trimmed from 3001 to \d+ words .*backend\.contextSize/);
    expect(events.some((event) => event.type === "note" && event.kind === "document trimmed")).toBe(true);

    const tiny = await runLoop("too-small", { designer: { attempts: 2 } }, ["DOC:magic"], { backend: sized(20) });
    expect(tiny.outcome).toBe("completed");
    const attempts = listEnvironments(tiny.db, { runId: tiny.runId, orderBy: "id" });
    expect(attempts).toHaveLength(2);
    for (const attempt of attempts) expect(attempt).toMatchObject({ valid: false, validationError: expect.stringMatching(/^prompt too long \(\d+ > 20 tokens\): raise backend\.contextSize/) });

    // A play whose first prompt does not fit is an errored play (a later one ends it truncated), and the run goes on.
    const agentTooLong = new ScriptedBackend((request) => {
      if (requestRole(request) === "agent") throw new PromptTooLongError(5000, 4096);
      return selfPlayReply(request);
    }, 2);
    const errored = await runLoop("play-too-long", {}, ["DOC:magic"], { backend: agentTooLong });
    expect(errored.outcome).toBe("completed");
    const plays = listScheduledPlays(errored.db, listEnvironments(errored.db, { runId: errored.runId })[0]!.id);
    expect(plays.length).toBeGreaterThan(0);
    for (const play of plays) expect(play.error).toMatch(/prompt too long \(5000 > 4096 tokens\)/);
  });
});
