import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { parseRunConfig } from "../../shared/runConfig.js";
import { createBackend } from "../llm/createBackend.js";
import type { EnvSession } from "../sandbox/EnvSession.js";
import type { SandboxPool } from "../sandbox/SandboxPool.js";
import { designerPromptMarker } from "../selfplay/designerPrompt.js";
import { SelfPlayLoop } from "../selfplay/SelfPlayLoop.js";
import { openDatabase } from "../store/openDatabase.js";
import { createRun } from "../store/queries/runs.js";
import type { BenchSection, BenchValue } from "./BenchSection.js";

const latencyMs = 50;
const levels = [1, 4, 16, 64];
const plays = 8;
const hintPlays = 8;
const maxTurns = 3;

const gameCode = `class GuessEnv:
    def __init__(self, max_turns=3, **kwargs):
        self.reset()
    def reset(self, seed=None):
        return "Guess the number.", {}
    def step(self, action):
        return "No.", 0.0, False, False, {}
`;

/**
 * The simulated OpenAI-compatible server, run in a worker thread so that its own CPU time does not
 * compete with the engine's event loop (a real server is another process): every request is
 * answered after `latencyMs`; it counts service time and requests in flight.
 */
const serverSource = `
const { parentPort, workerData } = require("node:worker_threads");
const { createServer } = require("node:http");
const stats = { serviceMs: 0, inFlight: 0, peak: 0, requests: 0 };
const server = createServer(async (req, res) => {
  const started = performance.now();
  stats.inFlight++;
  stats.peak = Math.max(stats.peak, stats.inFlight);
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = Buffer.concat(chunks).toString("utf8");
  if (!req.url.endsWith("/chat/completions") || body === "") {
    // Anything but a chat call (e.g. the backend asking for the model list): answer at once, not counted.
    stats.inFlight--;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ object: "list", data: [{ id: "latency", object: "model" }] }));
    return;
  }
  const messages = JSON.parse(body).messages;
  const designer = messages.some((m) => m.role !== "assistant" && m.content.includes(workerData.designerMarker));
  const hint = workerData.hintPrefixes.some((prefix) => messages[0].content.startsWith(prefix));
  const content = designer ? workerData.designerReply : hint ? "Think first." : "\\boxed{7}";
  await new Promise((resolve) => setTimeout(resolve, workerData.latencyMs));
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 3 } }));
  stats.inFlight--;
  stats.requests++;
  stats.serviceMs += performance.now() - started;
});
server.listen(0, "127.0.0.1", () => parentPort.postMessage({ port: server.address().port }));
parentPort.on("message", (message) => {
  if (message === "stats") parentPort.postMessage({ stats: { ...stats } });
  if (message === "reset") Object.assign(stats, { serviceMs: 0, inFlight: 0, peak: 0, requests: 0 });
  if (message === "close") server.close(() => process.exit(0));
});
`;

interface ServerStats {
  serviceMs: number;
  peak: number;
  requests: number;
}

async function startLatencyServer(): Promise<{ baseUrl: string; stats(): Promise<ServerStats>; reset(): void; close(): Promise<void> }> {
  const worker = new Worker(serverSource, { eval: true, workerData: { latencyMs, designerReply: "```python\n" + gameCode + "```\n", designerMarker: designerPromptMarker, hintPrefixes: ["You write hints", "You read the source code of"] } });
  const next = <T>(key: string) => new Promise<T>((resolve) => {
    const listener = (message: Record<string, unknown>) => {
      if (key in message) {
        worker.off("message", listener);
        resolve(message[key] as T);
      }
    };
    worker.on("message", listener);
  });
  const port = await next<number>("port");
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    stats: () => {
      const answer = next<ServerStats>("stats");
      worker.postMessage("stats");
      return answer;
    },
    reset: () => worker.postMessage("reset"),
    close: async () => {
      worker.postMessage("close");
      await new Promise((resolve) => worker.once("exit", resolve));
    },
  };
}

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
  return { open: async () => session() } as unknown as SandboxPool;
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
    const server = await startLatencyServer();
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
