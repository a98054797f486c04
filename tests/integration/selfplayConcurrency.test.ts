// Scheduling by dependency (issue 15): every slot of a batch is designed at once, each slot plays as
// soon as its own game is ready, and the stored results do not depend on concurrency or timing.
// Real sandbox and SQLite; a scripted model whose answers depend only on the request and whose
// latencies are chosen so that completion order differs from issue order.
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { recipeGameSkills as gameSkills } from "../../shared/skills.js";
import { openCorpus } from "../../main/corpus/openCorpus.js";
import type { ChatRequest } from "../../main/llm/LlmBackend.js";
import { Semaphore } from "../../main/util/Semaphore.js";
import { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { buildRunReport } from "../../main/selfplay/buildRunReport.js";
import type { LoopEvent } from "../../main/selfplay/LoopEvent.js";
import type { PlayTrace } from "../../main/rollout/PlayTrace.js";
import { playsInFlight } from "../../main/selfplay/playsInFlight.js";
import { SelfPlayLoop } from "../../main/selfplay/SelfPlayLoop.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { getEnvironment, listEnvironments } from "../../main/store/queries/environments.js";
import { listMemory } from "../../main/store/queries/memory.js";
import { createRun } from "../../main/store/queries/runs.js";
import { getDesignerAdvantage } from "../../main/store/queries/schedule.js";
import { ScriptedBackend, requestRole } from "../../main/bench/ScriptedBackend.js";
import { selfPlayReply } from "../support/selfPlayScript.js";

let dir: string;
let pool: SandboxPool;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "spade-concurrency-"));
  pool = await SandboxPool.create({ size: 4 });
  writeFileSync(join(dir, "corpus.jsonl"), ["DOC:magic doors", "DOC:riddle numbers", "DOC:broken parts", "DOC:copy of doors"].map((text) => JSON.stringify({ text })).join("\n") + "\n");
});
afterAll(async () => {
  await pool?.dispose();
});

/** A latency from the request's content: the same request always waits as long, different ones differ. */
function latencyOf(request: ChatRequest): number {
  const hash = createHash("sha256").update(JSON.stringify(request.messages)).digest();
  return hash[0]! % 25;
}

/**
 * Holds the designer call of one skill until `gate` opens. A loop that never opens it is let go after 150 s (within
 * the test's time-out, so the run ends) with `releasedBy` "timer", which the test fails on: the verdict is what
 * released the call, not how long it took.
 */
interface HeldDesigner {
  skill: string;
  gate: Promise<void>;
  releasedBy?: "gate" | "timer";
}

/** Serves at most `parallelism` requests at once, like a server with that many slots; more wait in line. */
class LatencyBackend extends ScriptedBackend {
  inFlight = 0;
  peakInFlight = 0;
  constructor(parallelism: number, held: HeldDesigner | null = null) {
    const slots = new Semaphore(parallelism);
    super(async (request) => {
      await slots.acquire();
      this.inFlight++;
      this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
      if (held && requestRole(request) === "designer" && request.messages.some((message) => message.content.includes(held.skill))) {
        let timer: NodeJS.Timeout | undefined;
        held.releasedBy = await Promise.race([held.gate.then(() => "gate" as const), new Promise<"timer">((resolve) => (timer = setTimeout(() => resolve("timer"), 150_000)))]);
        clearTimeout(timer);
      }
      await new Promise((resolve) => setTimeout(resolve, latencyOf(request)));
      this.inFlight--;
      slots.release();
      return selfPlayReply(request);
    }, parallelism);
  }
}

async function runAt(name: string, parallelism: number, held: HeldDesigner | null = null, onEvent?: (event: LoopEvent) => void, overrides: Record<string, unknown> = {}, trace?: PlayTrace) {
  const config = parseRunConfig(
    {
      db: join(dir, `${name}.sqlite`), seed: 5, iterations: 2, envsPerIteration: 3, plays: 3, hintPlays: 2, maxTurns: 2,
      regenerationInterval: 1, reward: { proposerDelay: 1 }, designer: { attempts: 2 },
      backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "scripted" }, corpus: { path: join(dir, "corpus.jsonl") }, ...overrides,
    },
    `${name}.json`,
  );
  const db = openDatabase(config.db);
  const run = createRun(db, { config, seed: config.seed });
  const backend = new LatencyBackend(parallelism, held);
  const events: { at: number; event: LoopEvent }[] = [];
  const outcome = await new SelfPlayLoop(run.id, config, { db, backend, pool, corpus: await openCorpus(config.corpus!.path), trace, onEvent: (event) => {
    events.push({ at: performance.now(), event });
    onEvent?.(event);
  } }).run();
  return { db, runId: run.id, backend, events, outcome };
}

/** Everything stored that must not depend on concurrency: the report minus row ids and timings, prompts, memory, advantages. */
function stored(db: ReturnType<typeof openDatabase>, runId: number) {
  const report = buildRunReport(db, runId).runs[0]!;
  const key = (env: { iteration: number; slot: number; attempt: number }) => `${env.iteration}/${env.slot}/${env.attempt}`;
  const byId = new Map(listEnvironments(db, { runId, orderBy: "id" }).map((env) => [env.id, key({ iteration: env.iteration ?? 0, slot: env.slot ?? 0, attempt: env.attempt ?? 0 })]));
  const environments = [...report.environments]
    .sort((a, b) => key(a).localeCompare(key(b)))
    .map(({ id, episodes, ...env }) => ({
      ...env,
      prompt: getEnvironment(db, id)!.prompt,
      advantage: getDesignerAdvantage(db, id),
      episodes: episodes.map(({ id: _id, ...episode }) => episode).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    }))
    .map((env) => ({ ...env, advantage: env.advantage && { ...env.advantage, environmentId: byId.get(env.advantage.environmentId) } }));
  const memory = listMemory(db, runId).map(({ environmentId, addedAt: _a, evictedAt: _e, ...entry }) => ({ ...entry, environment: byId.get(environmentId) })).sort((a, b) => a.environment!.localeCompare(b.environment!));
  return { status: report.status, iterationsCompleted: report.iterationsCompleted, environments, memory };
}

describe("the loop's scheduler", () => {
  it("keeps plays getting ready beyond the requests the backend serves: half as many again open and reset while those run", async () => {
    const open = new Set<string>();
    let peakPlays = 0;
    const marks: string[] = [];
    const { backend, outcome } = await runAt("ahead", 2, null, undefined, { iterations: 1 }, (play, mark) => {
      marks.push(mark);
      if (mark === "started") open.add(play);
      if (mark === "stored") open.delete(play);
      peakPlays = Math.max(peakPlays, open.size);
    });
    expect(outcome).toBe("completed");
    expect(backend.peakInFlight).toBe(2); // the backend's limit holds
    expect(peakPlays).toBe(playsInFlight(2)); // 3: one play ready behind the two requests
    expect(marks.filter((mark) => mark === "started").length).toBeGreaterThan(2 * playsInFlight(2)); // plays to spare: the limit, not the work, set the peak
  });

  it("stores identical results at concurrency 1, 4 and 16", async () => {
    const one = await runAt("c1", 1);
    const four = await runAt("c4", 4);
    const sixteen = await runAt("c16", 16);
    for (const run of [one, four, sixteen]) expect(run.outcome).toBe("completed");
    expect(one.backend.peakInFlight).toBe(1);
    expect(sixteen.backend.peakInFlight).toBeGreaterThanOrEqual(3); // bounded by the 4 sandboxes here
    const expected = stored(one.db, one.runId);
    expect(expected.environments.length).toBeGreaterThanOrEqual(6);
    expect(expected.memory.length).toBeGreaterThan(0); // later batches were designed with memory references
    expect(stored(four.db, four.runId)).toEqual(expected);
    expect(stored(sixteen.db, sixteen.runId)).toEqual(expected);
  }, 240_000);

  it("a slot plays as soon as its own game is valid, while another slot's designer call is still out", async () => {
    // Slot 0's designer call (the rotation's first skill) is issued first and answered only once
    // another slot has finished a play: a loop that worked slot by slot would never open the gate.
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const otherSlots = new Set<number>();
    const held: HeldDesigner = { skill: gameSkills[0]!, gate };
    const { events, outcome } = await runAt("order", 16, held, (event) => {
      if (event.type === "environmentAdded" && event.iteration === 0 && event.slot !== 0 && event.valid) otherSlots.add(event.environmentId);
      if (event.type === "episodeFinished" && otherSlots.has(event.environmentId)) open();
    });
    expect(outcome).toBe("completed");
    const firstIteration = events.filter(({ event }) => !("iteration" in event) || event.iteration === 0);
    const slot0Added = firstIteration.find(({ event }) => event.type === "environmentAdded" && event.slot === 0)!;
    const otherPlayed = firstIteration.find(({ event }) => event.type === "episodeFinished" && otherSlots.has(event.environmentId))!;
    // Issued first, finished after another slot's play: completion order differs from issue order.
    expect(otherPlayed.at).toBeLessThan(slot0Added.at);
    expect(held.releasedBy).toBe("gate");
  }, 180_000);

  it("with plays sized by the actor batch, the games designed first validate and play while a designer call is still out", async () => {
    // plays: null, actorBatch 6, 3 slots: each game plays ceil(6 / valid games), at least 2. Slot 0's
    // designer answers only after another game's play: a loop that waited for every design before
    // any play would never open the gate.
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const otherSlots = new Set<number>();
    const held: HeldDesigner = { skill: gameSkills[0]!, gate };
    const { db, runId, events, outcome } = await runAt("batch-order", 16, held, (event) => {
      if (event.type === "environmentAdded" && event.iteration === 0 && event.slot !== 0 && event.valid) otherSlots.add(event.environmentId);
      if (event.type === "episodeFinished" && otherSlots.has(event.environmentId)) open();
    }, { plays: null, actorBatch: 6, iterations: 1 });
    expect(outcome).toBe("completed");
    const slot0Added = events.find(({ event }) => event.type === "environmentAdded" && event.slot === 0)!;
    const otherPlayed = events.find(({ event }) => event.type === "episodeFinished" && otherSlots.has(event.environmentId))!;
    expect(otherPlayed.at).toBeLessThan(slot0Added.at);
    expect(held.releasedBy).toBe("gate");
    // The count still follows the valid games of the whole batch: ceil(6 / valid) unhinted plays per valid game.
    const valid = listEnvironments(db, { runId, valid: true });
    const unhinted = buildRunReport(db, runId).runs[0]!.environments.filter((env) => env.valid).map((env) => env.episodes.filter((episode) => !episode.hinted).length);
    expect(unhinted).toEqual(valid.map(() => Math.ceil(6 / valid.length)));
  }, 180_000);
});
