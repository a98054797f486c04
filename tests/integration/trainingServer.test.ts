// Training against a server: a run on an OpenAI-compatible backend (a scripted vLLM on loopback that
// returns token ids and log-probs) trains after every rollout; each round's adapter folder is loaded
// into the server through its dynamic LoRA route before the next rollout, and every play records the
// adapter it was sampled with.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../shared/llm.js";
import { parseRunConfig } from "../../shared/runConfig.js";
import { openCorpus } from "../../main/corpus/openCorpus.js";
import type { ChatRequest } from "../../main/llm/LlmBackend.js";
import { createBackend } from "../../main/llm/createBackend.js";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { SelfPlayLoop } from "../../main/selfplay/SelfPlayLoop.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { createRun } from "../../main/store/queries/runs.js";
import { listTrainingRounds } from "../../main/store/queries/trainingRounds.js";
import { createTrainingRound } from "../../main/training/createTrainingRound.js";
import type { RoundTrainer, RoundTrainRequest } from "../../main/training/RoundTrainer.js";
import type { BatchLine } from "../../main/training/TrainingBatch.js";
import { completionBody, startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fakeOpenAiServer.js";
import { createTestPool } from "../support/sandboxTestPool.js";
import { selfPlayReply } from "../support/selfPlayScript.js";

const codes = (text: string) => [...text].map((char) => char.charCodeAt(0) % 512);

/** Writes a PEFT-like adapter folder and records what each round was given. */
class FolderTrainer implements RoundTrainer {
  requests: { request: RoundTrainRequest; lines: BatchLine[] }[] = [];
  async train(request: RoundTrainRequest) {
    const [, ...lines] = readFileSync(request.batch, "utf8").trim().split("\n").map((line) => JSON.parse(line) as BatchLine);
    this.requests.push({ request, lines });
    mkdirSync(request.output, { recursive: true });
    writeFileSync(join(request.output, "adapter_config.json"), JSON.stringify({ r: 8, base_model_name_or_path: request.baseModel }));
    writeFileSync(join(request.output, "adapter_model.safetensors"), `round ${request.round}`);
    return { adapterPath: request.output, metrics: { loss: 0 }, mismatch: null };
  }
  async dispose(): Promise<void> {}
}

let dir: string;
let pool: SandboxPool;
let server: FakeOpenAiServer;
const loads: { lora_name: string; lora_path: string }[] = [];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "spade-train-server-"));
  pool = await createTestPool();
  server = await startFakeOpenAiServer(
    (request) => {
      if (request.path === "/v1/load_lora_adapter") {
        loads.push(request.body as (typeof loads)[number]);
        return { json: { ok: true } };
      }
      const messages = request.body.messages as ChatMessage[];
      const text = selfPlayReply({ messages, sampling: {} } as ChatRequest);
      const tokenIds = codes(text);
      const body = completionBody(text, { logprobs: tokenIds.map(() => -0.5) }) as { choices: Record<string, unknown>[] };
      body.choices[0]!.token_ids = tokenIds;
      return { json: { ...body, prompt_token_ids: codes(messages.map((m) => m.content).join("|")) } };
    },
    { models: { object: "list", data: [{ id: "Qwen/Qwen3-0.6B", object: "model", owned_by: "vllm" }] } },
  );
});
afterAll(async () => {
  await server?.close();
  await pool?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe("training against an OpenAI-compatible server", () => {
  it("trains after every rollout, loads each adapter into the server before the next, and records it on every play", async () => {
    const corpus = join(dir, "corpus.jsonl");
    writeFileSync(corpus, JSON.stringify({ text: "DOC:magic" }) + "\n");
    const config = parseRunConfig(
      {
        db: join(dir, "ws.sqlite"), seed: 3, iterations: 3, envsPerIteration: 1, plays: 3, hintPlays: 0, maxTurns: 2, regenerationInterval: 3, reward: { proposerDelay: 3 },
        backend: { kind: "openai", baseUrl: server.baseUrl, model: "Qwen/Qwen3-0.6B", stream: false },
        corpus: { path: corpus },
        training: { trainer: { kind: "hf", baseModel: "Qwen/Qwen3-0.6B" } },
      },
      "server-run.json",
    );
    const db = openDatabase(config.db);
    try {
      const runId = createRun(db, { config, seed: config.seed }).id;
      const backend = await createBackend(config.backend);
      const trainer = new FolderTrainer();
      const training = createTrainingRound(config, { db, runId, backend, createTrainer: async () => trainer })!;
      try {
        expect(await new SelfPlayLoop(runId, config, { db, backend, pool, corpus: await openCorpus(corpus), training }).run()).toBe("completed");
      } finally {
        await training.dispose();
        await backend.dispose();
      }
      expect(listTrainingRounds(db, runId).map((round) => round.status)).toEqual(["completed", "completed", "completed"]);
      // The trainer trains the checkpoint the server serves, into a folder (no GGUF conversion).
      expect(trainer.requests.map(({ request }) => [request.baseModel, request.output.endsWith(".gguf")])).toEqual([["Qwen/Qwen3-0.6B", false], ["Qwen/Qwen3-0.6B", false], ["Qwen/Qwen3-0.6B", false]]);
      // Three plays, three samples (a play whose turns the server templates apart is one line per turn, one ref).
      expect(new Set(trainer.requests[0]!.lines.filter((line) => line.role === "agent").map((line) => line.ref.episodeId)).size).toBe(3);
      expect(trainer.requests[0]!.lines.every((line) => line.tokens.length > 0 && line.behaviorLogprobs.some((logprob) => logprob === -0.5))).toBe(true);
      // Each round's adapter is loaded into the server under its name, from the adapters folder.
      expect(loads.map((load) => load.lora_name)).toEqual([`run-${runId}-r0`, `run-${runId}-r1`, `run-${runId}-r2`]);
      for (const load of loads) expect(existsSync(join(load.lora_path, "adapter_config.json"))).toBe(true);
      // Rollout k > 0 samples with the adapter of round k - 1, asked for by name, and records it.
      const plays = db.prepare(`SELECT rollout, adapter FROM episodes WHERE run_id = ? ORDER BY id`).all(runId) as { rollout: number; adapter: string | null }[];
      expect(plays.map((play) => [play.rollout, play.adapter])).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 2].map((rollout) => [rollout, rollout === 0 ? null : `run-${runId}-r${rollout - 1}`]));
      const lastChat = server.requests.filter((request) => request.path === "/v1/chat/completions").at(-1)!;
      expect(lastChat.body.model).toBe(`run-${runId}-r1`);
    } finally {
      db.close();
    }
  }, 120_000);
});
