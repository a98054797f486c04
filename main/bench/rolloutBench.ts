import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

const episodes = 8;
const maxTurns = 4;
const maxTokens = 24;

interface Batch {
  seconds: number;
  completionTokens: number;
  turns: number;
  /** Time spent waiting for the model, summed over turns. */
  modelSeconds: number;
}

/** Plays `episodes` full episodes of the bench game with the real model, storing every one. */
async function playBatch(model: string, pool: SandboxPool, db: WritableDb, sequences: number): Promise<Batch> {
  const backend = await LlamaBackend.load({ model, sequences, contextSize: 1024 });
  try {
    const code = benchEnvironmentCode();
    const run = createRun(db, { seed: sequences });
    const environmentId = insertEnvironment(db, { runId: run.id, iteration: 0, slot: 0, attempt: 0, source: "designer", code, valid: true });
    const specs: PlaySpec[] = Array.from({ length: episodes }, (_, playIndex) => ({ hinted: false, playIndex, canary: false, seed: 1000 + playIndex }));
    let completionTokens = 0;
    let turnCount = 0;
    let modelMs = 0;
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
        const { turns, ...fields } = episode;
        completionTokens += turns.reduce((sum, turn) => sum + turn.completionTokens, 0);
        turnCount += turns.length;
        modelMs += turns.reduce((sum, turn) => sum + turn.latencyMs, 0);
        insertEpisodeWithTurns(db, { ...fields, runId: run.id, environmentId }, turns);
      },
    });
    return { seconds: (performance.now() - start) / 1000, completionTokens, turns: turnCount, modelSeconds: modelMs / 1000 };
  } finally {
    await backend.dispose();
  }
}

/**
 * The rollout engine against raw node-llama-cpp, side by side in one run on the same model: full
 * episodes (sandboxed environment steps, prompts, recording, SQLite writes) one at a time and two
 * at a time (two sequences decoding in one batch), then the same number of tokens generated
 * directly with the same number of sequences.
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
      const sequential = await playBatch(model, pool, db, 1);
      const parallel = await playBatch(model, pool, db, 2);
      const rawTokensPerSec = await measureRawTokensPerSec(model, { tokens: parallel.completionTokens, sequences: 2 });
      const engineTokensPerSec = parallel.completionTokens / parallel.seconds;
      const sequentialEpisodesPerSec = episodes / sequential.seconds;
      const parallelEpisodesPerSec = episodes / parallel.seconds;
      const result = {
        rawTokensPerSec,
        engineTokensPerSec,
        overhead: 1 - engineTokensPerSec / rawTokensPerSec,
        sequentialEpisodesPerSec,
        parallelEpisodesPerSec,
        parallelSpeedup: parallelEpisodesPerSec / sequentialEpisodesPerSec,
        // Where a turn's time goes, one episode at a time: the model call (prompt evaluation over the
        // growing conversation + generation) and everything else (sandbox open/step/close, prompt
        // building, recording, SQLite). The second is fixed per turn: its share shrinks as models grow.
        modelMsPerTurn: (sequential.modelSeconds * 1000) / sequential.turns,
        engineMsPerTurn: ((sequential.seconds - sequential.modelSeconds) * 1000) / sequential.turns,
      };
      log(`rollout: raw ${rawTokensPerSec.toFixed(0)} tok/s, engine ${engineTokensPerSec.toFixed(0)} tok/s, ${sequentialEpisodesPerSec.toFixed(2)} -> ${parallelEpisodesPerSec.toFixed(2)} episodes/s`);
      return result;
    } finally {
      db.close();
      await pool.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
