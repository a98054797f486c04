// The "hf" trainer inside a run: configured with the checkpoint and the conversion script, it is
// given the checkpoint as its base model while adapters are still checked against the run's GGUF.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChatResult } from "../../shared/llm.js";
import { parseRunConfig } from "../../shared/runConfig.js";
import type { LlmBackend } from "../../main/llm/LlmBackend.js";
import { resolveRunConfigPaths } from "../../main/selfplay/resolveRunConfigPaths.js";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { getAdapter } from "../../main/store/queries/adapters.js";
import { upsertEnvStats } from "../../main/store/queries/envStats.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { insertEpisodeWithTurns } from "../../main/store/queries/episodes.js";
import { createRun } from "../../main/store/queries/runs.js";
import { setEpisodeRollout } from "../../main/store/queries/schedule.js";
import { listTrainingRounds } from "../../main/store/queries/trainingRounds.js";
import { createTrainingRound } from "../../main/training/createTrainingRound.js";
import type { RoundTrainRequest } from "../../main/training/RoundTrainer.js";
import { writeLoraAdapter, writeTinyLlamaModel, type TinyLlamaModel } from "../support/ggufWriter.js";

let dir: string;
let db: WritableDb;
let tiny: TinyLlamaModel;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "spade-hf-run-"));
  db = openDatabase(join(dir, "ws.sqlite"));
  tiny = await writeTinyLlamaModel(join(dir, "tiny.gguf"));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const backend: LlmBackend = {
  name: "none",
  parallelism: 1,
  adapter: null,
  chat: async (): Promise<ChatResult> => {
    throw new Error("not used");
  },
  setAdapters: async () => undefined,
  dispose: async () => undefined,
};

function config(trainer: unknown) {
  return parseRunConfig({ db: join(dir, "ws.sqlite"), backend: { kind: "llama", modelPath: tiny.path, gpu: false }, corpus: null, training: { every: 1, trainer } }, join(dir, "run.json"));
}

describe('training.trainer "hf" inside a run', () => {
  it("reads the bare name and the object form, and resolves the script beside the config", () => {
    expect(config("hf").training!.trainer).toEqual({ kind: "hf", baseModel: null, convertScript: null });
    const resolved = resolveRunConfigPaths(config({ kind: "hf", baseModel: "Qwen/Qwen3-0.6B", convertScript: "tools/convert_lora_to_gguf.py" }), dir);
    expect(resolved.training!.trainer).toEqual({ kind: "hf", baseModel: "Qwen/Qwen3-0.6B", convertScript: join(dir, "tools/convert_lora_to_gguf.py") });
    expect(resolveRunConfigPaths(config({ kind: "hf", baseModel: "./qwen", convertScript: "/c.py" }), dir).training!.trainer).toMatchObject({ baseModel: join(dir, "qwen") });
  });

  it("is refused at run start without the checkpoint or the conversion script, naming what is missing", () => {
    const runId = createRun(db).id;
    expect(() => createTrainingRound(config("hf"), { db, runId, backend })).toThrow(/"hf" inside a run needs .*baseModel \(the Hugging Face checkpoint/);
    expect(() => createTrainingRound(config({ kind: "hf", baseModel: "Qwen/Qwen3-0.6B" }), { db, runId, backend })).toThrow(/convertScript \(llama\.cpp's convert_lora_to_gguf\.py\) is missing/);
  });

  it("trains on the checkpoint and registers the converted GGUF adapter, checked against the run's model; round 1 continues from round 0's adapter", async () => {
    const runId = createRun(db, { seed: 5 }).id;
    const env = insertEnvironment(db, { runId, iteration: 0, slot: 0, attempt: 0, source: "designer", skill: "S", code: "class E: pass", valid: true });
    upsertEnvStats(db, { environmentId: env, plays: 2, hintPlays: 0, designerReward: 0.5, rewardKind: "blend" });
    // Two plays in rollout 0 and two in rollout 1: one round each.
    for (const [playIndex, ret] of [0, 1, 0, 1].entries()) {
      const rollout = playIndex < 2 ? 0 : 1;
      const episode = insertEpisodeWithTurns(db, { runId, environmentId: env, hinted: false, playIndex, return: ret }, [{ messages: [{ role: "user", content: "x" }], reward: ret, terminated: true, promptTokenIds: [1, 2], tokenIds: [3 + playIndex], tokenLogprobs: [-1] }]);
      setEpisodeRollout(db, episode, rollout);
    }
    const requests: RoundTrainRequest[] = [];
    const step = createTrainingRound(config({ kind: "hf", baseModel: "Qwen/Qwen3-0.6B", convertScript: "/opt/llama.cpp/convert_lora_to_gguf.py" }), {
      db,
      runId,
      backend,
      createTrainer: async () => ({
        async train(request) {
          requests.push(request);
          // What the hf worker hands back after its conversion step: a GGUF LoRA for the run's model.
          await writeLoraAdapter(request.output, { base: tiny, seed: 3, magnitude: 0.01 });
          return { adapterPath: request.output, metrics: { loss: 0.1 }, mismatch: null };
        },
        dispose: async () => undefined,
      }),
    })!;
    expect(await step.afterIteration(0)).toBe("done");
    expect(await step.afterIteration(1)).toBe("done");
    // Every round trains on the checkpoint; round 0 starts fresh, round 1 from round 0's adapter
    // (the reference trains one model across rollouts: a round that started over would lose it).
    // As things stand the parent handed over is round 0's registered GGUF adapter, the same for
    // "hf" as for the GGUF trainer (what the hf worker does with a GGUF parent is its own part).
    expect(requests.map((request) => request.baseModel)).toEqual(["Qwen/Qwen3-0.6B", "Qwen/Qwen3-0.6B"]);
    expect(requests.map((request) => request.round)).toEqual([0, 1]);
    expect(requests[0]!.parentAdapter).toBeNull();
    const [first, second] = listTrainingRounds(db, runId);
    expect(second!.parentAdapterId).toBe(first!.adapterId);
    expect(requests[1]!.parentAdapter).toBe(getAdapter(db, first!.adapterId!)!.path);
    expect(listTrainingRounds(db, runId).map((round) => round.status)).toEqual(["completed", "completed"]);
  });
});
