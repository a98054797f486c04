import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseRunConfig } from "../../shared/runConfig.js";
import { createBackend } from "../llm/createBackend.js";
import type { EnvSession } from "../sandbox/EnvSession.js";
import type { SandboxPool } from "../sandbox/SandboxPool.js";
import { SelfPlayLoop } from "../selfplay/SelfPlayLoop.js";
import { openDatabase } from "../store/openDatabase.js";
import { createRun } from "../store/queries/runs.js";
import type { BenchSection, BenchValue } from "./BenchSection.js";
import { startLatencyServer } from "./latencyServer.js";

const latencyMs = 50;
const levels = [1, 4, 16, 64];
const plays = 8;
const hintPlays = 8;
const maxTurns = 3;

/**
 * Sessions of the bench game that answer at once, in-process: this section measures how busy the
 * loop keeps the model server, so the sandbox must not be what limits it (the sandbox section
 * measures the sandbox). Never used by a run.
 */
function instantPool(): SandboxPool {
  const session = (): EnvSession => ({
    className: "GuessEnv",
    kind: "text",
    tools: null,
    reset: async () => ({ observation: "Guess the number.", info: {} }),
    step: async () => ({ observation: "No.", reward: 0, terminated: false, truncated: false, info: {} }),
    hint: async () => null,
    solution: async () => "\\boxed{7}",
    close: async () => undefined,
  });
  return { open: async () => session(), planPlays: () => undefined, playsToCome: () => 0 } as unknown as SandboxPool;
}

/**
 * The loop against a server with a fixed latency, at concurrency 1, 4, 16 and 64 (the backend's
 * `maxConcurrency`), one regeneration batch of max(2, c / 2) slots with 8 + 8 plays of 3 turns:
 * utilization = request service time / (concurrency x wall time), and the peak requests in flight.
 */
export const concurrencyBench: BenchSection = {
  name: "concurrency",
  async run(log) {
    const dir = mkdtempSync(join(tmpdir(), "spade-bench-concurrency-"));
    const server = await startLatencyServer({ latencyMs });
    const results: { [key: string]: BenchValue }[] = [];
    try {
      for (const concurrency of levels) {
        const slots = Math.max(2, concurrency / 2);
        const config = parseRunConfig(
          {
            db: join(dir, `c${concurrency}.sqlite`), seed: 1, iterations: 1, envsPerIteration: slots, plays, hintPlays, maxTurns,
            backend: { kind: "openai", baseUrl: server.baseUrl, model: "latency", maxConcurrency: concurrency, stream: false, logprobs: false }, corpus: null, training: null,
          },
          "concurrency bench",
        );
        const db = openDatabase(config.db);
        const run = createRun(db, { config, seed: config.seed });
        const backend = await createBackend(config.backend);
        server.reset();
        const start = performance.now();
        await new SelfPlayLoop(run.id, config, { db, backend, pool: instantPool(), corpus: null }).run();
        const wallSeconds = (performance.now() - start) / 1000;
        await backend.dispose();
        db.close();
        const stats = await server.stats();
        const utilization = stats.serviceMs / 1000 / (concurrency * wallSeconds);
        log(`concurrency ${concurrency}: ${stats.requests} requests, peak ${stats.peak} in flight, ${wallSeconds.toFixed(2)} s, utilization ${(utilization * 100).toFixed(0)}%`);
        results.push({ concurrency, utilization, peakInFlight: stats.peak, wallSeconds });
      }
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
    return { latencyMs, levels: results };
  },
};
