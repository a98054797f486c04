import { Worker } from "node:worker_threads";
import { designerPromptMarker } from "../selfplay/designerPrompt.js";

export interface LatencyServerOptions {
  /** Every chat answer is sent this long after the request arrived, in ms. Defaults to 50. */
  latencyMs?: number;
  /** The environment code every designer call gets. Defaults to a three-turn guessing game. */
  gameCode?: string;
  /** Each designer answer is a different game (its class keeps a distinct number), as a real designer's would be. Defaults to false. */
  distinctGames?: boolean;
}

export interface ServerStats {
  /** Request service time summed over the chat requests, in ms. */
  serviceMs: number;
  /** Most chat requests in flight at once. */
  peak: number;
  requests: number;
  /** CPU the server's own thread used since the last reset, in ms (from /proc/thread-self/stat); null off Linux. */
  cpuMs: number | null;
}

export interface LatencyServer {
  baseUrl: string;
  stats(): Promise<ServerStats>;
  /** Sets the counters to zero (the designer's game numbering goes on). */
  reset(): void;
  close(): Promise<void>;
}

export const benchGameCode = `class GuessEnv:
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
const { readFileSync } = require("node:fs");
const stats = { serviceMs: 0, inFlight: 0, peak: 0, requests: 0 };
// This thread's user + system CPU in ms (clock ticks of 10 ms), or null off Linux.
const threadCpuMs = () => {
  try {
    const stat = readFileSync("/proc/thread-self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
};
let cpuBase = threadCpuMs();
let games = 0;
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
  const code = workerData.distinctGames ? workerData.gameCode + "    GAME = " + games++ + "\\n" : workerData.gameCode;
  const content = designer ? "\`\`\`python\\n" + code + "\`\`\`\\n" : hint ? "Think first." : "\\\\boxed{7}";
  await new Promise((resolve) => setTimeout(resolve, workerData.latencyMs));
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 3 } }));
  stats.inFlight--;
  stats.requests++;
  stats.serviceMs += performance.now() - started;
});
server.listen(0, "127.0.0.1", () => parentPort.postMessage({ port: server.address().port }));
parentPort.on("message", (message) => {
  if (message === "stats") {
    const cpu = threadCpuMs();
    parentPort.postMessage({ stats: { ...stats, cpuMs: cpu === null || cpuBase === null ? null : cpu - cpuBase } });
  }
  if (message === "reset") {
    Object.assign(stats, { serviceMs: 0, inFlight: 0, peak: 0, requests: 0 });
    cpuBase = threadCpuMs();
  }
  if (message === "close") server.close(() => process.exit(0));
});
`;

/** Starts the scripted OpenAI-compatible server on loopback (benchmarks only: no run can select it). */
export async function startLatencyServer(options: LatencyServerOptions = {}): Promise<LatencyServer> {
  const workerData = {
    latencyMs: options.latencyMs ?? 50,
    gameCode: options.gameCode ?? benchGameCode,
    distinctGames: options.distinctGames ?? false,
    designerMarker: designerPromptMarker,
    hintPrefixes: ["You write hints", "You read the source code of"],
  };
  const worker = new Worker(serverSource, { eval: true, workerData });
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
