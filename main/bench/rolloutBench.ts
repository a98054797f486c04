import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatMessage } from "../../shared/llm.js";
import type { ChatRequest, LlmBackend } from "../llm/LlmBackend.js";
import { LlamaBackend } from "../llm/llama/LlamaBackend.js";
import { runPlays, type PlaySpec } from "../rollout/runPlays.js";
import type { EnvSession } from "../sandbox/EnvSession.js";
import { SandboxPool } from "../sandbox/SandboxPool.js";
import { median } from "../util/median.js";
import { openDatabase } from "../store/openDatabase.js";
import type { WritableDb } from "../store/DatabaseHandle.js";
import { insertEnvironment } from "../store/queries/environments.js";
import { insertEpisodeWithTurns } from "../store/queries/episodes.js";
import { createRun } from "../store/queries/runs.js";
import type { BenchSection } from "./BenchSection.js";
import { BenchSkipped } from "./BenchSkipped.js";
import { benchEnvironmentCode } from "./benchEnvironment.js";
import { benchModel } from "./benchModel.js";
import { measureIdlePenalty } from "./idlePenalty.js";
import { measureRawTokensPerSec } from "./rawTokens.js";
import { createRawReplayer, type RawReplayer, type ReplayedTurn, type ReplayTurn } from "./rawTokensReplay.js";

const episodes = 16;
const maxTurns = 4;
const maxTokens = 24;
const contextSize = 1024;

interface Batch {
  seconds: number;
  /** CPU time of this process (all its threads: the engine and llama.cpp), in ms. */
  cpuMs: number;
  completionTokens: number;
  turns: ReplayTurn[];
  /** The messages of every call, in call order (one sequence: the order they were evaluated). */
  messages: ChatMessage[][];
  /** Wall time of each `backend.chat`, in call order. */
  chatMs: number[];
  /** Process CPU time inside `backend.chat` calls, all together (one call at a time in the sequential batch). */
  chatCpuMs: number;
  /** Each turn replayed through raw node-llama-cpp right after the engine made it, when a replayer was given. */
  replays: ReplayedTurn[];
  /** Wall time of the sandbox calls (open, reset, step, close) and of storing the episodes, in ms, all together. */
  phases: Record<"open" | "reset" | "step" | "close" | "store", number>;
}

/** Times every call of a session into `phases`. */
function timedSession(session: EnvSession, phases: Batch["phases"]): EnvSession {
  const time = async <T>(phase: keyof Batch["phases"], call: () => Promise<T>): Promise<T> => {
    const start = performance.now();
    try {
      return await call();
    } finally {
      phases[phase] += performance.now() - start;
    }
  };
  return {
    className: session.className,
    kind: session.kind,
    tools: session.tools,
    reset: (seed) => time("reset", () => session.reset(seed)),
    step: (action) => time("step", () => session.step(action)),
    hint: () => session.hint(),
    solution: () => session.solution(),
    close: () => time("close", () => session.close()),
  };
}

/** Plays `episodes` full episodes of the bench game with the real model, storing every one, and records each model call. */
async function playBatch(model: string, pool: SandboxPool, db: WritableDb, sequences: number, replayer?: RawReplayer): Promise<Batch> {
  const llama = await LlamaBackend.load({ model, sequences, contextSize });
  const turns: ReplayTurn[] = [];
  const messages: ChatMessage[][] = [];
  const chatMs: number[] = [];
  let chatCpuMs = 0;
  const replays: ReplayedTurn[] = [];
  const phases: Batch["phases"] = { open: 0, reset: 0, step: 0, close: 0, store: 0 };
  let replayMs = 0;
  let replayCpuMs = 0;
  /** When the last call returned to the engine (its replay done), or null before the first call. */
  let lastReturn: number | null = null;
  const idle = new Int32Array(new SharedArrayBuffer(4));
  const backend: LlmBackend = {
    name: llama.name,
    parallelism: llama.parallelism,
    adapter: null,
    async chat(request: ChatRequest) {
      const start = performance.now();
      const cpuStart = process.cpuUsage();
      const result = await llama.chat(request);
      const cpu = process.cpuUsage(cpuStart);
      chatCpuMs += (cpu.user + cpu.system) / 1000;
      chatMs.push(performance.now() - start);
      messages.push(request.messages.map((message) => ({ ...message })));
      const turn: ReplayTurn = { promptTokenIds: result.promptTokenIds ?? [], tokenIds: result.tokenIds ?? [], sampling: result.samplingUsed ?? {}, endedByModel: result.finishReason === "stop" };
      turns.push(turn);
      if (replayer) {
        // Interleaved turn by turn, so the engine and the replay see the same load on the machine; its time is taken out of the engine's.
        // Before it, the replay waits as long as the engine worked between its previous call and this one: the model starts from
        // an idle CPU in both (work right after idleness runs slower on this kind of machine, see measureIdlePenalty).
        const waited = performance.now();
        if (lastReturn !== null) Atomics.wait(idle, 0, 0, Math.min(50, start - lastReturn));
        const replayed = await replayer.replay(turn);
        replays.push(replayed);
        replayMs += performance.now() - waited;
        replayCpuMs += replayed.cpuMs;
      }
      lastReturn = performance.now();
      return result;
    },
    dispose: () => llama.dispose(),
  };
  try {
    const code = benchEnvironmentCode();
    const run = createRun(db, { seed: sequences });
    const environmentId = insertEnvironment(db, { runId: run.id, iteration: 0, slot: 0, attempt: 0, source: "designer", code, valid: true });
    const specs: PlaySpec[] = Array.from({ length: episodes }, (_, playIndex) => ({ hinted: false, playIndex, canary: false, seed: 1000 + playIndex }));
    let completionTokens = 0;
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    await runPlays({
      open: async () => {
        const start = performance.now();
        const session = await pool.open(code);
        phases.open += performance.now() - start;
        return timedSession(session, phases);
      },
      backend,
      specs,
      hint: null,
      maxTurns,
      sampling: { maxTokens },
      // The bench model rarely ends a reply within the budget; episodes go on anyway so every one has maxTurns turns to measure.
      protocol: { endOnLength: false },
      concurrency: sequences,
      onEpisode: (episode) => {
        const { turns: played, ...fields } = episode;
        completionTokens += played.reduce((sum, turn) => sum + turn.completionTokens, 0);
        const start = performance.now();
        insertEpisodeWithTurns(db, { ...fields, runId: run.id, environmentId }, played);
        phases.store += performance.now() - start;
      },
    });
    const seconds = (performance.now() - start - replayMs) / 1000;
    const cpu = process.cpuUsage(cpuStart);
    return { seconds, cpuMs: (cpu.user + cpu.system) / 1000 - replayCpuMs, completionTokens, turns, messages, chatMs, chatCpuMs, replays, phases };
  } finally {
    await backend.dispose();
  }
}

/** Milliseconds LlamaBackend spends rendering and tokenising each recorded prompt (the chat template over the whole conversation). */
async function renderMsPerTurn(model: string, messages: ChatMessage[][]): Promise<number> {
  const llama = await LlamaBackend.load({ model, contextSize });
  try {
    await llama.countTokens(messages[0]!);
    const start = performance.now();
    for (const list of messages) await llama.countTokens(list);
    return (performance.now() - start) / messages.length;
  } finally {
    await llama.dispose();
  }
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/**
 * The rollout engine against raw node-llama-cpp, side by side in one run on the same model. Full
 * episodes (sandboxed environment steps, prompts, recording, SQLite writes) are played one at a
 * time and two at a time (two sequences decoding in one batch). Each one-at-a-time turn is replayed
 * through raw node-llama-cpp right after the engine made it (the same prompt tokens, the same
 * sampled tokens, the same prefix reuse; interleaved so both see the same load on the machine):
 * `engineMsPerTurn` is the engine's wall time minus the replay's, per turn, i.e.
 * everything that is not the model's own work. It splits into `backendMsPerTurn` (inside
 * LlamaBackend.chat: chat template, tokenising, sequence pool, stop checks, detokenising) and
 * `outsideBackendMsPerTurn` (sandbox steps, prompt building, recording, SQLite).
 */
export const rolloutBench: BenchSection = {
  name: "rollout",
  async run(log) {
    const model = benchModel();
    if (!model) throw new BenchSkipped("no model (set SPADE_BENCH_MODEL to a GGUF file)");
    const dir = mkdtempSync(join(tmpdir(), "spade-bench-rollout-"));
    const pool = await SandboxPool.create({ size: 2 });
    const db = openDatabase(join(dir, "bench.sqlite"));
    try {
      await playBatch(model, pool, db, 1); // warm-up: sandbox snapshots, model file cache
      const replayer = await createRawReplayer(model, { contextSize });
      let sequential: Batch;
      try {
        sequential = await playBatch(model, pool, db, 1, replayer);
      } finally {
        await replayer.dispose();
      }
      const parallel = await playBatch(model, pool, db, 2);
      const turns = sequential.turns.length;
      const engineMs = sequential.seconds * 1000;
      const rawMs = sum(sequential.replays.map((turn) => turn.ms));
      const rawCpuMs = sum(sequential.replays.map((turn) => turn.cpuMs));
      const chatMs = sum(sequential.chatMs);
      const rawTokensPerSec = await measureRawTokensPerSec(model, { tokens: parallel.completionTokens, sequences: 2 });
      const engineTokensPerSec = parallel.completionTokens / parallel.seconds;
      const sequentialEpisodesPerSec = episodes / sequential.seconds;
      const parallelEpisodesPerSec = episodes / parallel.seconds;
      // Turn by turn, engine and replay ran one right after the other: the median of their differences is the backend's own time, robust to the model's own jitter.
      const pairedBackendMs = median(sequential.chatMs.map((ms, index) => ms - (sequential.replays[index]?.ms ?? ms))) ?? 0;
      const idle = await measureIdlePenalty(pool, Math.round(rawMs / turns));
      const result = {
        rawTokensPerSec,
        engineTokensPerSec,
        sequentialEpisodesPerSec,
        parallelEpisodesPerSec,
        parallelSpeedup: parallelEpisodesPerSec / sequentialEpisodesPerSec,
        turns,
        promptTokensPerTurn: sum(sequential.turns.map((turn) => turn.promptTokenIds.length)) / turns,
        // Prompt tokens evaluated per turn: the rest of the prompt is the sequence's cached prefix.
        evaluatedPromptTokensPerTurn: sum(sequential.replays.map((turn) => turn.evaluatedPromptTokens)) / turns,
        rawMsPerTurn: rawMs / turns,
        engineMsPerTurn: (engineMs - rawMs) / turns,
        backendMsPerTurn: (chatMs - rawMs) / turns,
        outsideBackendMsPerTurn: (engineMs - chatMs) / turns,
        // The same difference in CPU time of this process (less sensitive to a busy machine; sandbox processes not included).
        engineCpuMsPerTurn: (sequential.cpuMs - rawCpuMs) / turns,
        backendCpuMsPerTurn: (sequential.chatCpuMs - rawCpuMs) / turns,
        outsideBackendCpuMsPerTurn: (sequential.cpuMs - sequential.chatCpuMs) / turns,
        renderMsPerTurn: await renderMsPerTurn(model, sequential.messages),
        // Where the time outside the backend goes, per turn: the sandbox calls (an episode's open, reset and close spread over its turns) and the SQLite writes.
        sandboxOpenMsPerTurn: sequential.phases.open / turns,
        sandboxResetMsPerTurn: sequential.phases.reset / turns,
        sandboxStepMsPerTurn: sequential.phases.step / turns,
        sandboxCloseMsPerTurn: sequential.phases.close / turns,
        storeMsPerTurn: sequential.phases.store / turns,
        // The engine's own time per turn with the backend's share taken as the median paired difference (the mean above carries the model's jitter).
        backendMsPerTurnMedian: pairedBackendMs,
        engineMsPerTurnMedianPaired: (engineMs - chatMs) / turns + pairedBackendMs,
        idle: { ...idle },
      };
      log(
        `rollout: raw ${result.rawMsPerTurn.toFixed(2)} ms/turn, engine's own ${result.engineMsPerTurn.toFixed(2)} ms/turn wall, ${result.engineCpuMsPerTurn.toFixed(2)} CPU ` +
          `(backend ${result.backendMsPerTurn.toFixed(2)}, of it rendering ${result.renderMsPerTurn.toFixed(2)}; outside ${result.outsideBackendMsPerTurn.toFixed(2)}), ` +
          `${sequentialEpisodesPerSec.toFixed(2)} -> ${parallelEpisodesPerSec.toFixed(2)} episodes/s; ` +
          `after ${idle.idleMs} ms idle a sandbox step takes ${idle.stepAfterIdleMs.toFixed(2)} ms (back to back ${idle.stepBackToBackMs.toFixed(2)}), the same JavaScript ${idle.jsAfterIdleMs.toFixed(3)} ms (${idle.jsBackToBackMs.toFixed(3)})`,
      );
      return result;
    } finally {
      db.close();
      await pool.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
