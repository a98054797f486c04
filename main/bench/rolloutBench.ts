import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatMessage } from "../../shared/llm.js";
import type { ChatRequest, LlmBackend } from "../llm/LlmBackend.js";
import { LlamaBackend } from "../llm/llama/LlamaBackend.js";
import { runPlays, type PlaySpec } from "../rollout/runPlays.js";
import { SandboxPool } from "../sandbox/SandboxPool.js";
import { openDatabase } from "../store/openDatabase.js";
import type { WritableDb } from "../store/DatabaseHandle.js";
import { insertEnvironment } from "../store/queries/environments.js";
import { insertEpisodeWithTurns } from "../store/queries/episodes.js";
import { createRun } from "../store/queries/runs.js";
import type { BenchSection } from "./BenchSection.js";
import { BenchSkipped } from "./BenchSkipped.js";
import { benchEnvironmentCode } from "./benchEnvironment.js";
import { benchModel } from "./benchModel.js";
import { measureRawTokensPerSec } from "./rawTokens.js";
import { replayTurnsRaw, type ReplayTurn } from "./rawTokensReplay.js";

const episodes = 8;
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
}

/** Plays `episodes` full episodes of the bench game with the real model, storing every one, and records each model call. */
async function playBatch(model: string, pool: SandboxPool, db: WritableDb, sequences: number): Promise<Batch> {
  const llama = await LlamaBackend.load({ model, sequences, contextSize });
  const turns: ReplayTurn[] = [];
  const messages: ChatMessage[][] = [];
  const chatMs: number[] = [];
  let chatCpuMs = 0;
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
      const used = result.samplingUsed ?? {};
      turns.push({ promptTokenIds: result.promptTokenIds ?? [], tokenIds: result.tokenIds ?? [], sampling: used, endedByModel: result.finishReason === "stop" });
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
      open: () => pool.open(code),
      backend,
      specs,
      hint: null,
      maxTurns,
      sampling: { maxTokens },
      concurrency: sequences,
      onEpisode: (episode) => {
        const { turns: played, ...fields } = episode;
        completionTokens += played.reduce((sum, turn) => sum + turn.completionTokens, 0);
        insertEpisodeWithTurns(db, { ...fields, runId: run.id, environmentId }, played);
      },
    });
    const seconds = (performance.now() - start) / 1000;
    const cpu = process.cpuUsage(cpuStart);
    return { seconds, cpuMs: (cpu.user + cpu.system) / 1000, completionTokens, turns, messages, chatMs, chatCpuMs };
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
 * time and two at a time (two sequences decoding in one batch). The one-at-a-time turns are then
 * replayed through raw node-llama-cpp (the same prompt tokens, the same sampled tokens, the same
 * prefix reuse): `engineMsPerTurn` is the engine's wall time minus the replay's, per turn, i.e.
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
      // Engine and replay alternate, twice; the quieter round (least wall time in all) is reported,
      // since other work on the machine slows both and the difference is small.
      const rounds: Array<{ batch: Batch; replay: Awaited<ReturnType<typeof replayTurnsRaw>> }> = [];
      for (let round = 0; round < 2; round++) {
        const batch = await playBatch(model, pool, db, 1);
        rounds.push({ batch, replay: await replayTurnsRaw(model, batch.turns, { contextSize }) });
      }
      const total = ({ batch, replay }: (typeof rounds)[number]) => batch.seconds * 1000 + sum(replay.ms);
      const { batch: sequential, replay } = rounds.sort((a, b) => total(a) - total(b))[0]!;
      const parallel = await playBatch(model, pool, db, 2);
      const turns = sequential.turns.length;
      const engineMs = sequential.seconds * 1000;
      const rawMs = sum(replay.ms);
      const chatMs = sum(sequential.chatMs);
      const rawTokensPerSec = await measureRawTokensPerSec(model, { tokens: parallel.completionTokens, sequences: 2 });
      const engineTokensPerSec = parallel.completionTokens / parallel.seconds;
      const sequentialEpisodesPerSec = episodes / sequential.seconds;
      const parallelEpisodesPerSec = episodes / parallel.seconds;
      const result = {
        rawTokensPerSec,
        engineTokensPerSec,
        sequentialEpisodesPerSec,
        parallelEpisodesPerSec,
        parallelSpeedup: parallelEpisodesPerSec / sequentialEpisodesPerSec,
        turns,
        promptTokensPerTurn: sum(sequential.turns.map((turn) => turn.promptTokenIds.length)) / turns,
        // Prompt tokens evaluated per turn: the rest of the prompt is the sequence's cached prefix.
        evaluatedPromptTokensPerTurn: replay.evaluatedPromptTokens / turns,
        rawMsPerTurn: rawMs / turns,
        engineMsPerTurn: (engineMs - rawMs) / turns,
        backendMsPerTurn: (chatMs - rawMs) / turns,
        outsideBackendMsPerTurn: (engineMs - chatMs) / turns,
        // The same difference in CPU time of this process (less sensitive to a busy machine; sandbox processes not included).
        engineCpuMsPerTurn: (sequential.cpuMs - replay.cpuMs) / turns,
        backendCpuMsPerTurn: (sequential.chatCpuMs - replay.cpuMs) / turns,
        outsideBackendCpuMsPerTurn: (sequential.cpuMs - sequential.chatCpuMs) / turns,
        renderMsPerTurn: await renderMsPerTurn(model, sequential.messages),
      };
      log(
        `rollout: raw ${result.rawMsPerTurn.toFixed(2)} ms/turn, engine's own ${result.engineMsPerTurn.toFixed(2)} ms/turn wall, ${result.engineCpuMsPerTurn.toFixed(2)} CPU ` +
          `(backend ${result.backendMsPerTurn.toFixed(2)}, of it rendering ${result.renderMsPerTurn.toFixed(2)}; outside ${result.outsideBackendMsPerTurn.toFixed(2)}), ` +
          `${sequentialEpisodesPerSec.toFixed(2)} -> ${parallelEpisodesPerSec.toFixed(2)} episodes/s`,
      );
      return result;
    } finally {
      db.close();
      await pool.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
