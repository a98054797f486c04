import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { LoraSpec } from "../../shared/backendConfig.js";
import type { ChatResult } from "../../shared/llm.js";
import { parseTrainingConfig } from "../../shared/trainingConfig.js";
import type { LlmBackend } from "../../main/llm/LlmBackend.js";
import type { LoopEvent } from "../../main/selfplay/LoopEvent.js";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { getAdapter, listAdapters } from "../../main/store/queries/adapters.js";
import { upsertEnvStats } from "../../main/store/queries/envStats.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { insertEpisodeWithTurns } from "../../main/store/queries/episodes.js";
import { createRun } from "../../main/store/queries/runs.js";
import { listTrainingRounds, startTrainingRound } from "../../main/store/queries/trainingRounds.js";
import type { RoundTrainer, RoundTrainRequest } from "../../main/training/RoundTrainer.js";
import { optimizerStatePath } from "../../main/training/optimizerStatePath.js";
import { TrainingRound, type GateDecision } from "../../main/training/TrainingRound.js";
import { writeLoraAdapter, writeTinyLlamaModel, type TinyLlamaModel } from "../support/ggufWriter.js";

/** A backend that records adapter switches and releases (no model). */
class RecordingBackend implements LlmBackend {
  readonly name = "recording";
  readonly parallelism = 1;
  lora: LoraSpec[] = [];
  calls: string[] = [];
  /** The accelerator as llama.cpp would have resolved it. */
  gpu: string | false = false;
  get adapter(): string | null {
    return this.lora.length === 0 ? null : this.lora.map((spec) => basename(spec.path)).join("+");
  }
  async chat(): Promise<ChatResult> {
    throw new Error("not used");
  }
  async setAdapters(lora: LoraSpec[]): Promise<void> {
    this.lora = lora;
    this.calls.push(`set ${this.adapter}`);
  }
  async unload(): Promise<void> {
    this.calls.push("unload");
  }
  async reload(lora?: LoraSpec[]): Promise<void> {
    if (lora) this.lora = lora;
    this.calls.push(`reload ${this.adapter}`);
  }
  async dispose(): Promise<void> {}
}

/** A trainer that writes a random LoRA for the tiny model and records what it was asked. */
class FakeTrainer implements RoundTrainer {
  requests: RoundTrainRequest[] = [];
  fail: string | null = null;
  hang = false;
  constructor(private readonly base: TinyLlamaModel) {}
  async train(request: RoundTrainRequest, options: { signal?: AbortSignal; onProgress?: (p: { step: number; steps: number; loss: number | null }) => void }) {
    this.requests.push(request);
    if (this.hang) await new Promise((_, reject) => options.signal?.addEventListener("abort", () => reject(new Error("killed"))));
    if (this.fail) throw new Error(this.fail);
    options.onProgress?.({ step: 1, steps: 1, loss: 0.5 });
    await writeLoraAdapter(request.output, { base: this.base, seed: request.round + 10, magnitude: 0.01 });
    // as the built-in trainers do: the optimiser state beside the adapter, continuing the parent's
    const parentState = request.parentAdapter ? readFileSync(optimizerStatePath(request.parentAdapter), "utf8") : "";
    writeFileSync(optimizerStatePath(request.output), `${parentState}r${request.round};`);
    return { adapterPath: request.output, metrics: { loss: 0.5, meanRatio: 1, maxRatio: 1, clippedFraction: 0, kl: 0, gradNorm: 0.1, tokens: 3, seconds: 0.01 }, mismatch: { meanAbsDiff: 0, maxAbsDiff: 0, tokens: 3 } };
  }
  async dispose(): Promise<void> {}
}

/** The fake trainer with a memory model that answers a fixed prediction, or refuses. */
class MemoryTrainer extends FakeTrainer {
  asked: { baseModel: string; longest: number; microBatchTokens: number }[] = [];
  refuse: string | null = null;
  async checkMemory(request: { baseModel: string; hyper: { microBatchTokens: number }; longest: number }) {
    this.asked.push({ baseModel: request.baseModel, longest: request.longest, microBatchTokens: request.hyper.microBatchTokens });
    if (this.refuse) throw new Error(this.refuse);
    return { peakBytes: 3.5e9, freeBytes: 8e9, parts: { weights: 2e9, lora: 0.5e9, activations: 0.75e9, outputLayer: 0.25e9, outputKept: 0.1e9 } };
  }
}

let dir: string;
let db: WritableDb;
let tiny: TinyLlamaModel;
let runId: number;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "spade-round-"));
  db = openDatabase(join(dir, "ws.sqlite"));
  tiny = await writeTinyLlamaModel(join(dir, "tiny.gguf"));
  runId = createRun(db, { seed: 5 }).id;
  for (let iteration = 0; iteration < 4; iteration++) {
    const env = insertEnvironment(db, { runId, iteration, slot: 0, attempt: 0, source: "designer", skill: "S", code: "class E: pass", valid: true });
    upsertEnvStats(db, { environmentId: env, plays: 2, hintPlays: 0, designerReward: 0.5, rewardKind: "blend" });
    for (const [playIndex, ret] of [0, 1].entries()) {
      insertEpisodeWithTurns(db, { runId, environmentId: env, hinted: false, playIndex, return: ret }, [{ messages: [{ role: "user", content: "x" }], reward: ret, terminated: true, promptTokenIds: [1, 2], tokenIds: [3 + playIndex], tokenLogprobs: [-1] }]);
    }
  }
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function round(trainer: FakeTrainer, backend: RecordingBackend, extra: { every?: number; gate?: (candidate: unknown) => Promise<GateDecision>; unloadModel?: boolean; events?: LoopEvent[] } = {}) {
  return new TrainingRound({
    db,
    runId,
    seed: 5,
    config: parseTrainingConfig("test", { every: extra.every ?? 1, ...(extra.unloadModel === undefined ? {} : { unloadModel: extra.unloadModel }) }),
    schedule: { iterations: 4, regenerationInterval: 1, skillsPerRegen: null, plays: 2, actorBatch: 192, designer: { kind: "llm", skills: ["S"] }, reward: { proposerDelay: 1 } },
    backend,
    baseModelPath: tiny.path,
    createTrainer: async () => trainer,
    gate: extra.gate,
    onEvent: (event) => extra.events?.push(event),
  });
}

describe("TrainingRound", () => {
  it("trains after every `every` iterations on the iterations since the last round, chains parents, and loads each adapter", async () => {
    const trainer = new FakeTrainer(tiny);
    const backend = new RecordingBackend();
    const events: LoopEvent[] = [];
    const step = round(trainer, backend, { every: 2, unloadModel: true, events });
    for (let iteration = 0; iteration < 4; iteration++) expect(await step.afterIteration(iteration)).toBe("done");
    const rounds = listTrainingRounds(db, runId);
    expect(rounds.map((r) => [r.round, r.afterIteration, r.status])).toEqual([[0, 1, "completed"], [1, 3, "completed"]]);
    const [first, second] = rounds.map((r) => getAdapter(db, r.adapterId!)!);
    expect(first!.name).toBe(`run-${runId}-r0`);
    expect(first!.parentId).toBeNull();
    expect(second!.parentId).toBe(first!.id);
    expect(rounds[1]!.parentAdapterId).toBe(first!.id);
    expect(trainer.requests.map((r) => r.parentAdapter)).toEqual([null, first!.path]);
    expect(trainer.requests[0]!.hyper).toMatchObject({ clipLow: 0.2, clipHigh: 0.28, klCoef: 0, samplesPerStep: null, lossAggregation: "sample", logprobs: "reference", adamBeta2: 0.98, weightDecay: 0.1 });
    // each installed adapter has the optimiser state its round wrote beside it; round 1 continued round 0's
    expect(optimizerStatePath(first!.path)).toBe(join(dir, "adapters", `${first!.name}.optim.pt`));
    expect(readFileSync(optimizerStatePath(first!.path), "utf8")).toBe("r0;");
    expect(readFileSync(optimizerStatePath(second!.path), "utf8")).toBe("r0;r1;");
    expect(rounds[0]!.metrics).toMatchObject({ sequences: 4, roles: { agent: 4, designer: 0 }, loss: 0.5, mismatch: { maxAbsDiff: 0 } });
    // Released for the trainer, loaded back once with the new adapter.
    expect(backend.calls).toEqual(["unload", `reload ${first!.name}.gguf`, "unload", `reload ${second!.name}.gguf`]);
    expect(rounds[0]!.metrics).toMatchObject({ releaseSeconds: expect.any(Number), trainerSeconds: expect.any(Number), reloadSeconds: expect.any(Number) });
    expect(events.filter((e) => e.type === "trainingFinished")).toHaveLength(2);
    expect(events.some((e) => e.type === "trainingProgress" && e.phase === "training" && e.loss === 0.5)).toBe(true);
  });

  it("releases the model by default where llama.cpp resolved a GPU, not on the CPU, and as training.unloadModel says", async () => {
    const trainer = new FakeTrainer(tiny);
    const gpuBackend = new RecordingBackend();
    gpuBackend.gpu = "cuda";
    await round(trainer, gpuBackend).afterIteration(0);
    expect(gpuBackend.calls).toEqual(["unload", `reload run-${runId}-r0.gguf`]);
    const cpuBackend = new RecordingBackend();
    await round(trainer, cpuBackend).afterIteration(1);
    // (each new step first puts the last round's adapter in use, as on resume)
    expect(cpuBackend.calls).toEqual([`set run-${runId}-r0.gguf`, `set run-${runId}-r1.gguf`]);
    const kept = new RecordingBackend();
    kept.gpu = "vulkan";
    await round(trainer, kept, { unloadModel: false }).afterIteration(2);
    expect(kept.calls).toEqual([`set run-${runId}-r1.gguf`, `set run-${runId}-r2.gguf`]);
  });

  it("a released model comes back with the adapter in use when the trainer fails", async () => {
    const trainer = new FakeTrainer(tiny);
    const backend = new RecordingBackend();
    backend.gpu = "metal";
    const step = round(trainer, backend);
    await step.afterIteration(0);
    trainer.fail = "CUDA out of memory";
    await step.afterIteration(1);
    expect(listTrainingRounds(db, runId).map((r) => r.status)).toEqual(["completed", "failed"]);
    expect(backend.calls).toEqual(["unload", `reload run-${runId}-r0.gguf`, "unload", `reload run-${runId}-r0.gguf`]);
  });

  it("prepare checks the trainer, then starts it before rollout 0; the rounds use that trainer; a failed check starts nothing", async () => {
    const trainer = new FakeTrainer(tiny);
    const calls: string[] = [];
    const options = {
      db, runId, seed: 5, config: parseTrainingConfig("test", { every: 1 }), backend: new RecordingBackend(), baseModelPath: tiny.path,
      schedule: { iterations: 4, regenerationInterval: 1, skillsPerRegen: null, plays: 2, actorBatch: 192, designer: { kind: "llm" as const, skills: ["S"] }, reward: { proposerDelay: 1 } },
      createTrainer: async () => (calls.push("start"), trainer),
    };
    // A clock that moves only while the trainer starts: its 2.5 s are the start-up, the check's time is not.
    let clock = 1_000_000;
    const now = vi.spyOn(Date, "now").mockImplementation(() => clock);
    const step = new TrainingRound({
      ...options,
      checkTrainer: async () => void (calls.push("check"), (clock += 7_000)),
      createTrainer: async () => (calls.push("start"), (clock += 2_500), trainer),
    });
    expect(step.startupSeconds).toBeNull();
    try {
      await step.prepare();
    } finally {
      now.mockRestore();
    }
    expect(calls).toEqual(["check", "start"]);
    expect(step.startupSeconds).toBe(2.5);
    await step.afterIteration(0);
    expect(calls).toEqual(["check", "start"]);
    expect(trainer.requests).toHaveLength(1);
    const refused = new TrainingRound({ ...options, checkTrainer: async () => Promise.reject(new Error("no torch: run `spade trainer setup`")) });
    await expect(refused.prepare()).rejects.toThrow("spade trainer setup");
    expect(calls).toEqual(["check", "start"]);
  });

  it("a rejecting gate keeps the parent in use and records why; a failing trainer records the failure and goes on", async () => {
    const trainer = new FakeTrainer(tiny);
    const backend = new RecordingBackend();
    let verdict = true;
    const step = round(trainer, backend, { gate: async () => ({ promoted: verdict, reason: verdict ? "within the margin" : "score 0.1 below the parent's 0.5" }) });
    await step.afterIteration(0);
    verdict = false;
    await step.afterIteration(1);
    trainer.fail = "CUDA out of memory";
    await step.afterIteration(2);
    const rounds = listTrainingRounds(db, runId);
    expect(rounds.map((r) => r.status)).toEqual(["completed", "rejected", "failed"]);
    expect(rounds[1]!.metrics.reason).toMatch(/below the parent's/);
    expect(rounds[2]!.metrics.reason).toMatch(/trainer failed: CUDA out of memory/);
    expect(rounds[2]!.adapterId).toBeNull();
    const first = getAdapter(db, rounds[0]!.adapterId!)!;
    expect(getAdapter(db, rounds[1]!.adapterId!)!.status).toBe("rejected");
    expect(rounds[2]!.parentAdapterId).toBe(first.id); // the rejected one never became a parent
    expect(backend.adapter).toBe(`${first.name}.gguf`);
  });

  it("interrupted while training: the round stays running and is trained again on resume; an adapter is registered once", async () => {
    const trainer = new FakeTrainer(tiny);
    trainer.hang = true;
    const abort = new AbortController();
    const first = round(trainer, new RecordingBackend());
    const pending = first.afterIteration(0, abort.signal);
    await new Promise((r) => setTimeout(r, 20));
    abort.abort();
    expect(await pending).toBe("interrupted");
    expect(listTrainingRounds(db, runId).map((r) => r.status)).toEqual(["running"]);

    // A new process: the round is taken up again.
    trainer.hang = false;
    const backend = new RecordingBackend();
    expect(await round(trainer, backend).afterIteration(0)).toBe("done");
    const [stored] = listTrainingRounds(db, runId);
    expect(stored).toMatchObject({ round: 0, status: "completed" });
    // Killed after registering but before finishing: resume uses the registered adapter, no second row.
    startTrainingRound(db, runId, 1, stored!.adapterId);
    await round(trainer, new RecordingBackend()).afterIteration(1);
    db.prepare("UPDATE training_rounds SET status = 'running' WHERE round = 1").run();
    const requests = trainer.requests.length;
    const resumed = new RecordingBackend();
    await round(trainer, resumed).afterIteration(1);
    expect(trainer.requests.length).toBe(requests); // not trained again
    expect(listAdapters(db).map((a) => a.name)).toEqual([`run-${runId}-r0`, `run-${runId}-r1`]);
    expect(resumed.adapter).toBe(`run-${runId}-r1.gguf`);
    // A run resumed after its last round samples with that round's adapter before the next iteration.
    const later = new RecordingBackend();
    await round(trainer, later, { every: 5 }).afterIteration(1);
    expect(later.adapter).toBe(`run-${runId}-r1.gguf`);
    expect(existsSync(getAdapter(db, stored!.adapterId!)!.path)).toBe(true);
  });

  it("before the first iteration asks the trainer's memory model about the largest round, and fails with its refusal", async () => {
    const trainer = new MemoryTrainer(tiny);
    const backend = Object.assign(new RecordingBackend(), { contextSize: 2048 });
    const note = await round(trainer, backend).prepare();
    expect(trainer.asked).toEqual([{ baseModel: tiny.path, longest: 2048, microBatchTokens: 4096 }]);
    expect(note).toBe("training: the largest round (2048-token context, micro-batch 4096 tokens) is predicted to peak at 3.50 GB (weights 2.00 GB, LoRA + Adam 0.50 GB, then the larger of activations 0.75 GB and the output layer 0.25 GB with the 0.10 GB of activations it keeps, which never coexist); 8.00 GB free");
    trainer.refuse = "the training round needs about 9.00 GB (...) but cuda:0 has 8.00 GB free: lower training.microBatchTokens (now 4096)";
    await expect(round(trainer, backend).prepare()).rejects.toThrow(/^training: the training round needs about 9\.00 GB .* lower training\.microBatchTokens/);
    // a trainer without a memory model is not asked
    expect(await round(new FakeTrainer(tiny), backend).prepare()).toBeNull();
  });
});
