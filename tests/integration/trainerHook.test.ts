// The whole trainer hook with a fake trainer script: export, run, log, register, evaluate, gate; and
// the registered adapter really changes a real model's output (node-llama-cpp on CPU, tiny model).
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrainerConfig } from "../../shared/runConfig.js";
import { adapterLineage } from "../../main/adapters/adapterLineage.js";
import type { SuiteEvalReport } from "../../main/eval/evaluateSuite.js";
import { AdapterMismatchError } from "../../main/llm/gguf/AdapterMismatchError.js";
import { LlamaBackend } from "../../main/llm/llama/LlamaBackend.js";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { getAdapter, listAdapters } from "../../main/store/queries/adapters.js";
import { listEvalResults } from "../../main/store/queries/evalResults.js";
import { AdapterEvaluationError } from "../../main/training/AdapterEvaluationError.js";
import { trainAdapter, type TrainAdapterOptions } from "../../main/training/trainAdapter.js";
import { TrainerCancelledError } from "../../main/training/TrainerCancelledError.js";
import { TrainerFailedError } from "../../main/training/TrainerFailedError.js";
import { compileFixture } from "../fixtures/trainers/compileFixture.js";
import { writeTinyLlamaModel } from "../support/ggufWriter.js";
import { seedTrainingWorkspace } from "../support/trainingFixture.js";

let fakeTrainerJs: string;
const fakeTrainer = (mode: string): string[] => [
  process.execPath, fakeTrainerJs,
  "--dataset", "{dataset}", "--base", "{baseModel}", "--out", "{outputDir}", "--previous", "{previousAdapter}", "--mode", mode,
];

function trainer(mode: string, extra: Partial<TrainerConfig> = {}): TrainerConfig {
  return { command: fakeTrainer(mode), convert: null, env: {}, cwd: null, baseModel: null, formats: ["trl-sft", "grpo"], includeHinted: false, timeoutMs: null, eval: null, ...extra };
}

let dir: string;
let db: WritableDb;
let runId: number;
let modelPath: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "spade-train-"));
  fakeTrainerJs = compileFixture(join(import.meta.dirname, "..", "fixtures", "trainers", "fakeTrainer.ts"), join(dir, "bin"));
  modelPath = join(dir, "tiny.gguf");
  await writeTinyLlamaModel(modelPath);
  db = openDatabase(join(dir, "workspace.sqlite"));
  runId = seedTrainingWorkspace(db).runId;
});
afterAll(() => db?.close());

const train = (mode: string, options: Partial<TrainAdapterOptions> = {}, extra: Partial<TrainerConfig> = {}) =>
  trainAdapter({ db, runId, trainer: trainer(mode, extra), baseModelPath: modelPath, ...options });

async function greedy(backend: LlamaBackend): Promise<string> {
  const reply = await backend.chat({ messages: [{ role: "user", content: "the cat" }], sampling: { temperature: 0, maxTokens: 12, seed: 1 } });
  return reply.text;
}

describe("the trainer hook", () => {
  it("exports, trains, streams log and progress, registers an immutable adapter, and the next context uses it", async () => {
    const backend = await LlamaBackend.load({ model: modelPath, gpu: false, threads: 1, build: "never", contextSize: 256 });
    try {
      const before = await greedy(backend);
      const lines: string[] = [];
      const progress: Array<[string, number | null]> = [];
      let unloads = 0;
      const result = await train("gguf", {
        onLog: (line) => lines.push(line),
        onProgress: (phase, fraction) => progress.push([phase, fraction]),
        release: {
          unload: async () => {
            unloads++;
            await backend.unload();
          },
          reload: () => backend.reload(),
        },
      });
      const { adapter } = result;
      expect(adapter).toMatchObject({ name: `run-${runId}-v1`, runId, parentId: null, status: "ready" });
      expect(adapter.path).toBe(join(dir, "adapters", `run-${runId}-v1.gguf`));
      expect(statSync(adapter.path).mode & 0o222).toBe(0);
      expect(adapter.trainerCommand).toContain("fakeTrainer.js --dataset");
      expect(adapter.log).toContain("dataset: trl-sft.jsonl=3 grpo.jsonl=1");
      expect(adapter.log).toContain("[spade] registered");
      expect(adapter.metrics).toMatchObject({ trainer: { loss: 0.2, examples: 4 } });
      expect(adapter.manifest).toMatchObject({ format: "trl-sft+grpo", run: runId, counts: { grpo: { groups: 1 } } });
      expect(adapter.baseModelSha256).toMatch(/^[0-9a-f]{64}$/);
      expect(lines).toContain("PROGRESS 0.5");
      expect(progress).toEqual(expect.arrayContaining([["exporting", null], ["training", 0.25], ["training", 1], ["registering", null]]));
      expect(unloads).toBe(1);

      // The model was released and loaded again; a new context with the adapter changes the output.
      expect(await greedy(backend)).toBe(before);
      await backend.setAdapters([{ path: adapter.path }]);
      expect(backend.adapter).toBe(`run-${runId}-v1.gguf`);
      const after = await greedy(backend);
      expect(after).not.toBe(before);
      await backend.setAdapters([]);
      expect(await greedy(backend)).toBe(before);
    } finally {
      await backend.dispose();
    }
  });

  it("continues from a parent adapter: {previousAdapter} is the parent's file and the lineage links them", async () => {
    const parent = listAdapters(db, runId).find((a) => a.status === "ready")!;
    const { adapter } = await train("gguf", { parentId: parent.id });
    expect(adapter).toMatchObject({ name: `run-${runId}-v2`, parentId: parent.id, status: "ready" });
    expect(adapter.log).toContain(`previous adapter: ${parent.path}`);
    expect(adapterLineage(db, adapter.id).map((a) => a.name)).toEqual([`run-${runId}-v2`, `run-${runId}-v1`]);
    expect(readFileSync(adapter.path).equals(readFileSync(parent.path))).toBe(false);
  });

  it("refuses an adapter for another architecture, registering nothing usable", async () => {
    const error = await train("wrong-arch").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdapterMismatchError);
    expect((error as Error).message).toMatch(/the adapter is for architecture "falcon", but the base model is "llama"/);
    const failed = listAdapters(db, runId).at(-1)!;
    expect(failed.status).toBe("failed");
    expect(failed.metrics).toMatchObject({ error: expect.stringContaining("falcon") });
    expect(existsSync(failed.path)).toBe(false);
  });

  it("converts a PEFT adapter with the convert command", async () => {
    const convert = [process.execPath, fakeTrainerJs, "--convert", "{peftDir}", "{outputFile}", "--base", "{baseModel}"];
    const noConvert = await train("peft").catch((e: unknown) => e);
    expect(noConvert).toBeInstanceOf(TrainerFailedError);
    expect((noConvert as Error).message).toMatch(/wrote a PEFT adapter .* set trainer\.convert/);
    const { adapter } = await train("peft", {}, { convert });
    expect(adapter.status).toBe("ready");
    expect(adapter.log).toMatch(/converting .*peft \(rank 4\)/);
  });

  it("reports a failing trainer with its exit code and last lines", async () => {
    const error = await train("fail").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TrainerFailedError);
    expect((error as Error).message).toMatch(/exited with code 3; last lines:\n[^]*CUDA out of memory \(pretend\)/);
    expect(listAdapters(db, runId).at(-1)).toMatchObject({ status: "failed", log: expect.stringContaining("CUDA out of memory") });
  });

  it("cancels a hanging trainer through the abort signal", async () => {
    const abort = new AbortController();
    // the trainer hangs for good after 25 %: only the cancel ends it (a cancel that did nothing would run into the test's time-out)
    const error = await train("hang", { onProgress: (phase, fraction) => phase === "training" && fraction === 0.25 && abort.abort(), signal: abort.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TrainerCancelledError);
    expect(listAdapters(db, runId).at(-1)).toMatchObject({ status: "cancelled" });
  });

  it("evaluates the new adapter against its parent and applies the promotion gate", async () => {
    const scores = new Map<string | null, number>([[null, 0.5]]);
    const evaluated: Array<string | null> = [];
    const evaluate = async (path: string | null): Promise<SuiteEvalReport> => {
      evaluated.push(path);
      const accuracy = scores.get(path) ?? 0.4;
      return { suite: "held-out", n: 10, correct: accuracy * 10, accuracy, interval: [accuracy, accuracy], items: [] };
    };
    const suite = join(dir, "held-out.jsonl");
    const rejected = await train("gguf", { evaluate }, { eval: { suite, limit: null, margin: 0.05, maxTokens: 64 } });
    expect(evaluated).toEqual([rejected.adapter.path, null]);
    expect(rejected.evaluation).toMatchObject({ score: 0.4, parentScore: 0.5, promoted: false });
    expect(getAdapter(db, rejected.adapter.id)).toMatchObject({ status: "rejected", metrics: { eval: { score: 0.4, parentScore: 0.5, margin: 0.05, promoted: false } } });

    evaluated.length = 0;
    const promoted = await train("gguf", { evaluate }, { eval: { suite, limit: null, margin: 0.2, maxTokens: 64 } });
    expect(evaluated).toEqual([promoted.adapter.path]); // the base model's stored score is reused
    expect(promoted.adapter.status).toBe("promoted");
    expect(listEvalResults(db, { suite }).map((r) => [r.adapterId, r.accuracy])).toEqual([
      [rejected.adapter.id, 0.4],
      [null, 0.5],
      [promoted.adapter.id, 0.4],
    ]);
  });

  it("keeps a registered adapter usable when its evaluation fails", async () => {
    const evaluate = async (): Promise<SuiteEvalReport> => {
      throw new Error("server unreachable");
    };
    const error = await train("gguf", { evaluate }, { eval: { suite: join(dir, "s.jsonl"), limit: null, margin: 0, maxTokens: 64 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdapterEvaluationError);
    expect(listAdapters(db, runId).at(-1)).toMatchObject({ status: "ready", metrics: { evalError: "server unreachable" } });
  });

  it("keeps every adapter version in its own file", () => {
    const files = readdirSync(join(dir, "adapters")).sort();
    const ready = listAdapters(db, runId).filter((a) => existsSync(a.path));
    expect(files).toEqual(ready.map((a) => `${a.name}.gguf`).sort());
    expect(new Set(ready.map((a) => a.path)).size).toBe(ready.length);
  });
});
