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
import type { BenchSection, BenchValue } from "./BenchSection.js";
import { startLatencyServer } from "./latencyServer.js";

const latencyMs = 300;
const concurrency = 16;
const games = 12;
const plays = 8;
const maxTurns = 3;

/**
 * One rollout's figures: server utilisation (request service time / (concurrency x wall)), the
 * peak requests in flight, the sandbox processes started and recycled, and the wall time against the ideal
 * (every request's latency spread over the `concurrency` slots).
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
}

/**
 * The scenario of a GPU server fed by the loop: an OpenAI-compatible server on loopback that answers
 * every request after 300 ms, 16 requests allowed in flight, 12 games x 8 plays (+ 8 hinted plays in
 * the regeneration rollout) of 3 turns, a regeneration rollout then a replay rollout of the same
 * games, through the real self-play loop and a real sandbox pool sized as a run sizes it. Every
 * designer answer is a different game, so every game needs its own sandbox processes.
 */
export const regenerationBench: BenchSection = {
  name: "regeneration",
  async run(log) {
    const dir = mkdtempSync(join(tmpdir(), "spade-bench-regeneration-"));
    const server = await startLatencyServer({ latencyMs, distinctGames: true });
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
      const backend = await createBackend(configFor(2).backend);
      pool = await SandboxPool.create(sandboxPoolSizing(configFor(2), backend));
      const rollouts: RolloutFigures[] = [];
      for (const iterations of [1, 2]) {
        server.reset();
        const startedProcesses = pool.stats().processesStarted;
        const recycledProcesses = pool.stats().processesRecycled;
        const sharedBefore = pool.stats().sharedOpens;
        const start = performance.now();
        await new SelfPlayLoop(run.id, configFor(iterations), { db, backend, pool, corpus: null }).run();
        const wallSeconds = (performance.now() - start) / 1000;
        const stats = await server.stats();
        const idealSeconds = (stats.requests * latencyMs) / 1000 / concurrency;
        const figures: RolloutFigures = {
          utilization: stats.serviceMs / 1000 / (concurrency * wallSeconds),
          peakInFlight: stats.peak,
          requests: stats.requests,
          processesStarted: pool.stats().processesStarted - startedProcesses,
          processesRecycled: pool.stats().processesRecycled - recycledProcesses,
          wallSeconds,
          idealSeconds,
          wallOverIdeal: wallSeconds / idealSeconds,
        };
        rollouts.push(figures);
        const name = iterations === 1 ? "regeneration" : "replay";
        log(`${name} rollout: ${pool.stats().sharedOpens - sharedBefore} plays joined a process holding another play of their game (peak ${pool.stats().sharedPlaysPeak} in one process, switch p50 ${pool.stats().playSwitchP50Ms?.toFixed(2) ?? "-"} ms)`);
        log(`${name} rollout: ${stats.requests} requests, peak ${stats.peak} in flight, utilization ${(figures.utilization * 100).toFixed(0)}%, ${figures.processesStarted} sandbox processes started, ${figures.processesRecycled} recycled, ${wallSeconds.toFixed(1)} s (ideal ${idealSeconds.toFixed(1)} s)`);
      }
      await backend.dispose();
      db.close();
      const poolStats = pool.stats();
      return {
        latencyMs,
        concurrency,
        games,
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
      };
    } finally {
      await pool?.dispose();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
