// Training against a server: a run on an OpenAI-compatible backend trains after every rollout
// against the scripted vLLM (two replicas) and the scripted SGLang (tests/support/fakeVllmServer.ts,
// fakeSglangServer.ts, written from their source). Each round's adapter folder, with its optimiser
// state beside it, is loaded into every replica under a name no other workspace produces before the
// next rollout; every play records the adapter it was sampled with; every batch line says which
// log-prob definition its server's values follow; and a resumed run on the live server goes on.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { openCorpus } from "../../main/corpus/openCorpus.js";
import { workspaceTag } from "../../main/adapters/workspaceTag.js";
import type { ChatRequest } from "../../main/llm/LlmBackend.js";
import { createBackend } from "../../main/llm/createBackend.js";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { SelfPlayLoop } from "../../main/selfplay/SelfPlayLoop.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { getAdapter } from "../../main/store/queries/adapters.js";
import { createRun } from "../../main/store/queries/runs.js";
import { listTrainingRounds } from "../../main/store/queries/trainingRounds.js";
import { createTrainingRound } from "../../main/training/createTrainingRound.js";
import { optimizerStatePath } from "../../main/training/optimizerStatePath.js";
import type { RoundTrainer, RoundTrainRequest } from "../../main/training/RoundTrainer.js";
import type { BatchLine } from "../../main/training/TrainingBatch.js";
import { startFakeSglangServer } from "../support/fakeSglangServer.js";
import { startFakeVllmServer } from "../support/fakeVllmServer.js";
import type { GenerationScript, ScriptedServer } from "../support/scriptedServer.js";
import { createTestPool } from "../support/sandboxTestPool.js";
import { selfPlayReply } from "../support/selfPlayScript.js";

const codes = (text: string) => [...text].map((char) => char.charCodeAt(0) % 512);
const model = "Qwen/Qwen3-0.6B";
const script: GenerationScript = ({ messages }) => {
  const text = selfPlayReply({ messages, sampling: {} } as ChatRequest);
  const tokenIds = codes(text);
  return { text, promptTokenIds: codes(messages.map((m) => m.content).join("|")), tokenIds, logprobs: tokenIds.map(() => -0.5) };
};

/**
 * Writes a PEFT-like adapter folder (rank 32, the default) and, as the built-in trainers do, its
 * optimiser state beside it (`<output>.optim.pt`): here the step count, continued from the state
 * found beside the parent adapter.
 */
class FolderTrainer implements RoundTrainer {
  requests: { request: RoundTrainRequest; lines: BatchLine[]; parentSteps: number | null }[] = [];
  async train(request: RoundTrainRequest) {
    const [, ...lines] = readFileSync(request.batch, "utf8").trim().split("\n").map((line) => JSON.parse(line) as BatchLine);
    const parentState = request.parentAdapter === null ? null : optimizerStatePath(request.parentAdapter);
    const parentSteps = parentState && existsSync(parentState) ? (JSON.parse(readFileSync(parentState, "utf8")) as { steps: number }).steps : null;
    this.requests.push({ request, lines, parentSteps });
    mkdirSync(request.output, { recursive: true });
    writeFileSync(join(request.output, "adapter_config.json"), JSON.stringify({ r: 32, lora_alpha: 32, target_modules: ["q_proj", "v_proj"], base_model_name_or_path: request.baseModel }));
    writeFileSync(join(request.output, "adapter_model.safetensors"), `round ${request.round}`);
    writeFileSync(optimizerStatePath(request.output), JSON.stringify({ steps: (parentSteps ?? 0) + 1 }));
    return { adapterPath: request.output, metrics: { loss: 0 }, mismatch: null };
  }
  async dispose(): Promise<void> {}
}

let dir: string;
let pool: SandboxPool;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "spade-train-server-"));
  pool = await createTestPool();
});
afterAll(async () => {
  await pool?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe.each([
  { kind: "vllm" as const, definition: "raw", replicas: 2 },
  { kind: "sglang" as const, definition: "tempered", replicas: 1 },
])("training against $kind", ({ kind, definition, replicas }) => {
  it("trains after every rollout, loads each adapter with its optimiser state into every replica before the next, and resumes on the live server", async () => {
    const servers: Array<ScriptedServer & { baseUrl: string; loras: Map<string, string>; chats(): { body: Record<string, unknown> }[] }> = [];
    for (let i = 0; i < replicas; i++) servers.push(kind === "vllm" ? await startFakeVllmServer(script, { model, maxLoraRank: 32 }) : await startFakeSglangServer(script, { model }));
    const work = join(dir, kind);
    mkdirSync(work);
    const corpus = join(work, "corpus.jsonl");
    writeFileSync(corpus, JSON.stringify({ text: "DOC:magic" }) + "\n");
    const config = parseRunConfig(
      {
        db: join(work, "ws.sqlite"), seed: 3, iterations: 3, envsPerIteration: 1, plays: 3, hintPlays: 0, maxTurns: 2, regenerationInterval: 3, reward: { proposerDelay: 3 },
        backend: { kind: "openai", baseUrl: servers[0]!.baseUrl, model, ...(replicas > 1 ? { replicas: servers.map((server) => server.baseUrl) } : {}) },
        corpus: { path: corpus },
        training: { trainer: { kind: "hf", baseModel: model } },
      },
      "server-run.json",
    );
    const db = openDatabase(config.db);
    try {
      const runId = createRun(db, { config, seed: config.seed }).id;
      const tag = workspaceTag(db, runId);
      const backend = await createBackend(config.backend);
      const trainer = new FolderTrainer();
      const training = createTrainingRound(config, { db, runId, backend, createTrainer: async () => trainer })!;
      try {
        // the preflight before rollout 0: this server can train
        await training.prepare();
        expect(await new SelfPlayLoop(runId, config, { db, backend, pool, corpus: await openCorpus(corpus), training }).run()).toBe("completed");
      } finally {
        await training.dispose();
        await backend.dispose();
      }
      const rounds = listTrainingRounds(db, runId);
      expect(rounds.map((round) => round.status)).toEqual(["completed", "completed", "completed"]);
      const names = [0, 1, 2].map((round) => `run-${runId}-r${round}-${tag}`);
      expect(rounds.map((round) => getAdapter(db, round.adapterId!)!.name)).toEqual(names);
      // Every replica was given every round's adapter, loaded from the adapters folder; each round's replaced the one before, which was unloaded.
      const loadPath = kind === "vllm" ? "/v1/load_lora_adapter" : "/load_lora_adapter";
      for (const server of servers) {
        const loads = server.requests.filter((request) => request.path === loadPath).map((request) => request.body as { lora_name: string; lora_path: string });
        expect(loads.map((load) => load.lora_name).filter((name) => !name.startsWith("spade-preflight"))).toEqual(names);
        for (const load of loads.filter((load) => !load.lora_name.startsWith("spade-preflight"))) expect(existsSync(join(load.lora_path, "adapter_config.json"))).toBe(true);
        expect([...server.loras.keys()]).toEqual([names[2]]);
      }
      // Adam's state goes with each adapter: round k continues from round k - 1's state, found beside its parent.
      expect(trainer.requests.map((request) => request.parentSteps)).toEqual([null, 1, 2]);
      for (const [k, round] of rounds.entries()) expect(JSON.parse(readFileSync(optimizerStatePath(getAdapter(db, round.adapterId!)!.path), "utf8"))).toEqual({ steps: k + 1 });
      // The trainer trains the checkpoint the server serves, into a folder; each line says which function its log-probs are.
      expect(trainer.requests.map(({ request }) => [request.baseModel, request.output.endsWith(".gguf")])).toEqual([[model, false], [model, false], [model, false]]);
      for (const { lines } of trainer.requests) {
        expect(lines.length).toBeGreaterThan(0);
        for (const line of lines) {
          expect(line.tokens.length).toBeGreaterThan(0);
          expect(line.behaviorLogprobs.some((logprob) => logprob === -0.5)).toBe(true);
          expect(line.sampling?.logprobs).toBe(definition);
        }
      }
      // Rollout k > 0 samples with round k - 1's adapter and records it.
      const plays = db.prepare(`SELECT rollout, adapter FROM episodes WHERE run_id = ? ORDER BY id`).all(runId) as { rollout: number; adapter: string | null }[];
      expect(plays.map((play) => [play.rollout, play.adapter])).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 2].map((rollout) => [rollout, rollout === 0 ? null : names[rollout - 1]]));
      const lastChat = servers.flatMap((server) => server.chats()).at(-1)!;
      expect(kind === "vllm" ? lastChat.body.model : lastChat.body.lora_path).toBe(names[1]);

      // Resume on the live server: a new process loads the adapter in use again, and the server's "already loaded" is taken as done.
      const again = await createBackend(config.backend);
      const resumed = createTrainingRound(config, { db, runId, backend: again, createTrainer: async () => trainer })!;
      try {
        expect(await resumed.afterIteration(2)).toBe("done");
        expect(again.adapter).toBe(names[2]);
      } finally {
        await resumed.dispose();
        await again.dispose();
      }
    } finally {
      db.close();
      for (const server of servers) await server.close();
    }
  }, 120_000);
});

describe("the preflight before rollout 0", () => {
  it("refuses a run whose server cannot train, naming the flag, before anything is sampled", async () => {
    const server = await startFakeVllmServer(script, { model, enableLora: false });
    const db = openDatabase(join(dir, "refused.sqlite"));
    try {
      const config = parseRunConfig(
        { db: join(dir, "refused.sqlite"), backend: { kind: "openai", baseUrl: server.baseUrl, model }, corpus: null, training: { trainer: { kind: "hf", baseModel: model } } },
        "refused.json",
      );
      const runId = createRun(db, { config }).id;
      const backend = await createBackend(config.backend);
      const training = createTrainingRound(config, { db, runId, backend, createTrainer: async () => new FolderTrainer() })!;
      try {
        await expect(training.prepare()).rejects.toThrow(/LoRA is off: start vLLM with --enable-lora --max-lora-rank 32/);
        expect(server.chats()).toHaveLength(0);
      } finally {
        await training.dispose();
        await backend.dispose();
      }
    } finally {
      db.close();
      await server.close();
    }
  });
});

describe("two workspaces sharing one server", () => {
  it("name their adapters apart", () => {
    const a = openDatabase(join(dir, "a.sqlite"));
    const b = openDatabase(join(dir, "b.sqlite"));
    try {
      const [runA, runB] = [createRun(a).id, createRun(b).id];
      expect(runA).toBe(runB);
      expect(workspaceTag(a, runA)).toMatch(/^[0-9a-f]{10}$/);
      expect(workspaceTag(a, runA)).not.toBe(workspaceTag(b, runB));
      expect(workspaceTag(a, runA)).toBe(workspaceTag(a, runA));
    } finally {
      a.close();
      b.close();
    }
  });
});
