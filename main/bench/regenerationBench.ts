import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseRunConfig, type RunConfig } from "../../shared/runConfig.js";
import { createBackend } from "../llm/createBackend.js";
import { SandboxPool } from "../sandbox/SandboxPool.js";
import { sandboxPoolSizing } from "../selfplay/RunController.js";
import { SelfPlayLoop } from "../selfplay/SelfPlayLoop.js";
import { openDatabase } from "../store/openDatabase.js";
import { createRun } from "../store/queries/runs.js";
import type { PlayTrace } from "../rollout/PlayTrace.js";
import type { BenchSection, BenchValue } from "./BenchSection.js";
import { startLatencyServer } from "./latencyServer.js";
import { DescendantCpu } from "./descendantCpu.js";
import { slotTimeline, type SlotTimeline, type TracedMark } from "./slotTimeline.js";
import { traceRequests } from "./traceRequests.js";

/** The simulated server's answer time. */
const latencyMs = 300;
/**
 * The answer time of the one-turn control (`oneTurnSlowServer`): the same plays, the same CPU each,
 * against twice the server time, so that the CPU a play costs weighs half as much. Where the one-turn
 * game falls short at 300 ms and meets its goal here, what it lacks is CPU, not scheduling: the
 * design lead-in and the rollout's tail are one answer long at either speed.
 */
const slowLatencyMs = 600;
const games = 12;
/** Plays per game at 16 requests in flight; at 64 four times as many (the same games, the server's work scaled with its slots). */
const playsAt16 = 8;
const maxTurns = 3;

/** A game that ends after one answer (each play is one request: the shape of most reasoning puzzles). */
export const oneTurnGameCode = `class GuessEnv:
    def __init__(self, **kwargs):
        self.reset()
    def reset(self, seed=None):
        return "Guess the number.", {}
    def step(self, action):
        return "No.", 0.0, True, False, {}
`;

/**
 * One rollout's figures: server utilization (request service time / (concurrency x wall)), the
 * peak requests in flight, the sandbox processes started and recycled, the wall time against the ideal
 * (every request's latency spread over the `concurrency` slots), and where the slots' time went.
 */
export interface RolloutFigures {
  [key: string]: BenchValue;
  utilization: number;
  peakInFlight: number;
  requests: number;
  processesStarted: number;
  /** Processes put back to their pristine state to serve another game (`sandbox.recycleProcesses`). */
  processesRecycled: number;
  wallSeconds: number;
  idealSeconds: number;
  wallOverIdeal: number;
  /** The slots' time, rebuilt from the engine's own records (`slotTimeline`), in ms; `slots` per slot. */
  timeline: BenchValue;
  /** Where the CPU went, whatever the machine's load (see `RolloutCpu`). */
  cpu: RolloutCpu;
}

/**
 * A rollout's CPU, load-independent figures to judge the engine and the sandbox by on a busy
 * machine (utilization there is noise): per play, the sandbox children's CPU beside the process
 * starts inside the window, and the engine's; the process starts on their own. Null figures: not
 * measurable here (the children's CPU is read from Linux's /proc).
 */
export interface RolloutCpu {
  [key: string]: BenchValue;
  /** Plays of the rollout (each play's marks, validation's replays included). */
  plays: number;
  /** CPU of the sandbox processes (confinement wrappers included) per play, process starts inside the window left out, in ms. */
  childrenMsPerPlay: number | null;
  /** CPU of the engine process per play (its threads, the simulated server's and the /proc readings' left out), in ms. */
  engineMsPerPlay: number;
  /** Process starts that ended inside the window, and their CPU summed (spawn to ready), in ms. */
  starts: number;
  startsCpuMs: number;
  /** The sandbox children's CPU in the window, starts included, and the simulated server's thread, in ms. */
  childrenMs: number | null;
  serverMs: number | null;
}

export interface ScenarioOptions {
  /** "three": games truncated after 3 answers; "one": games that end after one answer. */
  turns: "three" | "one";
  /** Requests in flight at the server (`maxConcurrency`). */
  concurrency: number;
  /** Unhinted (and hinted) plays per game in the regeneration rollout. */
  plays: number;
  log: (line: string) => void;
  /** The simulated server's answer time in ms. Defaults to 300. */
  latencyMs?: number;
}

export interface ScenarioFigures {
  [key: string]: BenchValue;
  regeneration: RolloutFigures;
  replay: RolloutFigures;
}

const round1 = (value: number) => Math.round(value * 10) / 10;

/** The timeline as bench values, idle figures rounded to the ms. */
function timelineValue(timeline: SlotTimeline): BenchValue {
  const rounded = (record: Record<string, number>) => Object.fromEntries(Object.entries(record).map(([key, value]) => [key, Math.round(value)]));
  return {
    busyMs: Math.round(timeline.busyMs),
    start: rounded(timeline.start),
    between: rounded(timeline.between),
    tailMs: Math.round(timeline.tailMs),
    meanInFlight: Number(timeline.meanInFlight.toFixed(2)),
    handoverP50Ms: timeline.handoverP50Ms === null ? null : Number(timeline.handoverP50Ms.toFixed(1)),
    handoverP90Ms: timeline.handoverP90Ms === null ? null : Number(timeline.handoverP90Ms.toFixed(1)),
    slots: timeline.slots.map((slot) => rounded({ ...slot })),
  };
}

/** What the idle time went to, in a line: the causes above 1 % of the slot time. */
function describeIdle(timeline: SlotTimeline, totalMs: number): string {
  const parts = [
    ...Object.entries(timeline.start).map(([cause, ms]) => [`start ${cause}`, ms] as const),
    ...Object.entries(timeline.between).map(([cause, ms]) => [`between ${cause}`, ms] as const),
    ["tail", timeline.tailMs] as const,
  ].filter(([, ms]) => ms > totalMs / 100);
  return parts.map(([name, ms]) => `${name} ${((100 * ms) / totalMs).toFixed(0)}%`).join(", ");
}

/**
 * One scenario: a regeneration rollout then a replay rollout of the same games, through the real
 * self-play loop and a real sandbox pool sized as a run sizes it, against the simulated server.
 */
export async function measureScenario(options: ScenarioOptions): Promise<ScenarioFigures> {
  const { concurrency, plays, log } = options;
  const answerMs = options.latencyMs ?? latencyMs;
  const dir = mkdtempSync(join(tmpdir(), "spade-bench-regeneration-"));
  const server = await startLatencyServer({ latencyMs: answerMs, distinctGames: true, ...(options.turns === "one" ? { gameCode: oneTurnGameCode } : {}) });
  let pool: SandboxPool | null = null;
  try {
    const configFor = (iterations: number): RunConfig =>
      parseRunConfig(
        {
          db: join(dir, "regeneration.sqlite"), seed: 1, iterations, envsPerIteration: games, plays, hintPlays: plays, maxTurns, regenerationInterval: 2,
          backend: { kind: "openai", baseUrl: server.baseUrl, model: "latency", maxConcurrency: concurrency, stream: false, logprobs: false }, corpus: null, training: null,
        },
        "regeneration bench",
      );
    const db = openDatabase(configFor(2).db);
    const run = createRun(db, { config: configFor(2), seed: 1 });
    const traced = traceRequests(await createBackend(configFor(2).backend));
    const marks: TracedMark[] = [];
    const trace: PlayTrace = (play, mark, at) => marks.push({ play, mark, at });
    const creating = performance.now();
    pool = await SandboxPool.create(sandboxPoolSizing(configFor(2), traced.backend));
    const poolCreate = { seconds: (performance.now() - creating) / 1000, processes: pool.stats().processesStarted, cpuMs: pool.stats().startCpuMsTotal };
    log(`${options.turns}-turn at ${concurrency}${answerMs === latencyMs ? "" : ` (answers after ${answerMs} ms)`}: pool created with ${poolCreate.processes} processes in ${poolCreate.seconds.toFixed(1)} s (${(poolCreate.cpuMs / 1000).toFixed(1)} CPU s)`);
    const rollouts: RolloutFigures[] = [];
    for (const iterations of [1, 2]) {
      server.reset();
      traced.requests.length = 0;
      marks.length = 0;
      const startedProcesses = pool.stats().processesStarted;
      const recycledProcesses = pool.stats().processesRecycled;
      const sharedBefore = pool.stats().sharedOpens;
      const startCpuBefore = pool.stats().startCpuMsTotal;
      const children = DescendantCpu.start();
      const engineBefore = process.cpuUsage();
      const start = performance.now();
      await new SelfPlayLoop(run.id, configFor(iterations), { db, backend: traced.backend, pool, corpus: null, trace }).run();
      const end = performance.now();
      const engineUsage = process.cpuUsage(engineBefore);
      const childrenCpu = children.stop();
      const wallSeconds = (end - start) / 1000;
      const stats = await server.stats();
      const plays = new Set(marks.map((mark) => mark.play)).size;
      const starts = pool.stats().processesStarted - startedProcesses;
      const startsCpuMs = pool.stats().startCpuMsTotal - startCpuBefore;
      const engineMs = (engineUsage.user + engineUsage.system) / 1000 - (stats.cpuMs ?? 0) - (childrenCpu?.samplingMs ?? 0);
      const cpu: RolloutCpu = {
        plays,
        childrenMsPerPlay: childrenCpu === null ? null : round1(Math.max(0, childrenCpu.childrenMs - startsCpuMs) / Math.max(1, plays)),
        engineMsPerPlay: round1(engineMs / Math.max(1, plays)),
        starts,
        startsCpuMs: Math.round(startsCpuMs),
        childrenMs: childrenCpu === null ? null : Math.round(childrenCpu.childrenMs),
        serverMs: stats.cpuMs,
      };
      const idealSeconds = (stats.requests * answerMs) / 1000 / concurrency;
      const timeline = slotTimeline(traced.requests, marks, { slots: concurrency, startAt: start, endAt: end });
      const figures: RolloutFigures = {
        utilization: stats.serviceMs / 1000 / (concurrency * wallSeconds),
        peakInFlight: stats.peak,
        requests: stats.requests,
        processesStarted: pool.stats().processesStarted - startedProcesses,
        processesRecycled: pool.stats().processesRecycled - recycledProcesses,
        wallSeconds,
        idealSeconds,
        wallOverIdeal: wallSeconds / idealSeconds,
        timeline: timelineValue(timeline),
        cpu,
      };
      rollouts.push(figures);
      const name = `${options.turns}-turn at ${concurrency}, ${iterations === 1 ? "regeneration" : "replay"}`;
      log(`${name} rollout: ${pool.stats().sharedOpens - sharedBefore} plays joined a process holding another play of their game (peak ${pool.stats().sharedPlaysPeak} in one process, switch p50 ${pool.stats().playSwitchP50Ms?.toFixed(2) ?? "-"} ms)`);
      log(`${name} rollout: ${stats.requests} requests, peak ${stats.peak} in flight, utilization ${(figures.utilization * 100).toFixed(0)}%, ${figures.processesStarted} sandbox processes started, ${figures.processesRecycled} recycled, ${wallSeconds.toFixed(1)} s (ideal ${idealSeconds.toFixed(1)} s)`);
      log(`${name} rollout: CPU per play: children ${cpu.childrenMsPerPlay ?? "-"} ms, engine ${cpu.engineMsPerPlay} ms (${plays} plays); ${starts} process starts inside, ${startsCpuMs.toFixed(0)} CPU ms`);
      log(`${name} rollout: slots idle: ${describeIdle(timeline, concurrency * (end - start))} (handover p50 ${timeline.handoverP50Ms?.toFixed(0) ?? "-"} ms, p90 ${timeline.handoverP90Ms?.toFixed(0) ?? "-"} ms)`);
    }
    await traced.backend.dispose();
    db.close();
    const poolStats = pool.stats();
    return {
      concurrency,
      plays,
      regeneration: rollouts[0]!,
      replay: rollouts[1]!,
      startCpuMsP50: poolStats.startCpuMsP50,
      memoryPerProcessMb: poolStats.memoryPerProcessMb,
      capacity: poolStats.capacity,
      sharedPlaysPeak: poolStats.sharedPlaysPeak,
      sharedOpens: poolStats.sharedOpens,
      playSwitchP50Ms: poolStats.playSwitchP50Ms,
      playsPerProcess: pool.playsPerProcess,
      recycleCpuMsP50: poolStats.recycleCpuMsP50,
      poolCreate,
    };
  } finally {
    await pool?.dispose();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The scenario of a GPU server fed by the loop: an OpenAI-compatible server on loopback that answers
 * every request after 300 ms, 12 games (every designer answer a different game, so every game needs
 * its own sandbox processes), a regeneration rollout (8 unhinted + 8 hinted plays per game) then a
 * replay rollout (8 plays), at 16 requests in flight; the same at 64 in flight with 32 plays per game.
 * Two games: one truncated after 3 answers (`threeTurn`; its figures at 16 also at the top level as
 * before) and one that ends after one answer (`oneTurn`); and the one-turn game against a server
 * that answers after 600 ms (`oneTurnSlowServer`, at 16 and 64), the control that tells a lack of CPU
 * from a lack of scheduling.
 */
export const regenerationBench: BenchSection = {
  name: "regeneration",
  async run(log) {
    const result: Record<string, BenchValue> = { latencyMs, games };
    for (const turns of ["three", "one"] as const) {
      const levels: Record<string, BenchValue> = {};
      for (const concurrency of [16, 64]) levels[String(concurrency)] = await measureScenario({ turns, concurrency, plays: (playsAt16 * concurrency) / 16, log });
      result[`${turns}Turn`] = levels;
    }
    const slow: Record<string, BenchValue> = { latencyMs: slowLatencyMs };
    for (const concurrency of [16, 64]) slow[String(concurrency)] = await measureScenario({ turns: "one", concurrency, plays: (playsAt16 * concurrency) / 16, log, latencyMs: slowLatencyMs });
    result.oneTurnSlowServer = slow;
    const threeAt16 = (result.threeTurn as Record<string, ScenarioFigures>)["16"]!;
    return { ...result, concurrency: 16, plays: playsAt16, regeneration: threeAt16.regeneration, replay: threeAt16.replay };
  },
};
