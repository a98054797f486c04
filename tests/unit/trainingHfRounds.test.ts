// The "hf" trainer continues across rounds inside a local run: it trains PEFT adapters and converts
// each to a GGUF LoRA for llama.cpp, and the next round is given the installed GGUF as its parent,
// so the PEFT folder (`<name>-peft`) and the optimiser state (`<name>.optim.pt`) must be installed
// beside it. Here a trainer lays out its output as train_lora.py does, and before each round asks
// train_lora.py's own lookups (find_peft_dir, spade_step.optimizer_state_path) where they find the
// parent's folder and state: three rounds, each continuing the one before.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChatResult } from "../../shared/llm.js";
import { parseRunConfig } from "../../shared/runConfig.js";
import type { LlmBackend } from "../../main/llm/LlmBackend.js";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { upsertEnvStats } from "../../main/store/queries/envStats.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { insertEpisodeWithTurns } from "../../main/store/queries/episodes.js";
import { createRun } from "../../main/store/queries/runs.js";
import { listTrainingRounds } from "../../main/store/queries/trainingRounds.js";
import { createTrainingRound } from "../../main/training/createTrainingRound.js";
import { pythonHasTorch } from "../../main/training/resolveTrainerPython.js";
import type { RoundTrainRequest } from "../../main/training/RoundTrainer.js";
import { writeLoraAdapter, writeTinyLlamaModel, type TinyLlamaModel } from "../support/ggufWriter.js";

const python = "/usr/bin/python3";
const hasTorch = pythonHasTorch(python);
const trainers = resolve(import.meta.dirname, "../../resources/trainers");

/** Where train_lora.py finds a parent's PEFT folder and optimiser state (null: not found). */
function hfLookups(parent: string): { peft: string | null; state: string | null } {
  const code = `import json, os, sys; sys.path.insert(0, ${JSON.stringify(trainers)}); import train_lora
from step import spade_step
p = sys.argv[1]; s = spade_step.optimizer_state_path(p)
print(json.dumps({"peft": train_lora.find_peft_dir(p), "state": s if os.path.exists(s) else None}))`;
  return JSON.parse(execFileSync(python, ["-c", code, parent], { encoding: "utf8", env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } })) as { peft: string | null; state: string | null };
}

let dir: string;
let db: WritableDb;
let tiny: TinyLlamaModel;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "spade-hf-rounds-"));
  db = openDatabase(join(dir, "ws.sqlite"));
  tiny = await writeTinyLlamaModel(join(dir, "tiny.gguf"));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const backend: LlmBackend = { name: "none", parallelism: 1, adapter: null, chat: async (): Promise<ChatResult> => Promise.reject(new Error("not used")), setAdapters: async () => undefined, dispose: async () => undefined };

describe.skipIf(!hasTorch)('training.trainer "hf" over three rounds of a local run', () => {
  it("installs each round's PEFT folder and optimiser state beside its GGUF, where the next round's trainer finds them", async () => {
    const config = parseRunConfig(
      { db: join(dir, "ws.sqlite"), backend: { kind: "llama", modelPath: tiny.path, gpu: false }, corpus: null, training: { every: 1, trainer: { kind: "hf", baseModel: "Qwen/Qwen3-0.6B", convertScript: "/opt/llama.cpp/convert_lora_to_gguf.py" } } },
      join(dir, "run.json"),
    );
    const runId = createRun(db, { seed: 5 }).id;
    for (const iteration of [0, 1, 2]) {
      const env = insertEnvironment(db, { runId, iteration, slot: 0, attempt: 0, source: "designer", skill: "S", code: "class E: pass", valid: true });
      upsertEnvStats(db, { environmentId: env, plays: 2, hintPlays: 0, designerReward: 0.5, rewardKind: "blend" });
      for (const play of [0, 1]) insertEpisodeWithTurns(db, { runId, environmentId: env, hinted: false, playIndex: play, return: play }, [{ messages: [{ role: "user", content: "x" }], reward: play, terminated: true, promptTokenIds: [1, 2], tokenIds: [3 + play], tokenLogprobs: [-1] }]);
    }
    const seen: Array<{ peft: string | null; state: string | null; steps: number | null }> = [];
    const step = createTrainingRound(config, {
      db,
      runId,
      backend,
      createTrainer: async () => ({
        async train(request: RoundTrainRequest) {
          // what train_lora.py does with its parent: the PEFT folder (find_peft_dir) and the state beside it
          const found = request.parentAdapter === null ? { peft: null, state: null } : hfLookups(request.parentAdapter);
          const steps = found.state ? (JSON.parse(readFileSync(found.state, "utf8")) as { steps: number }).steps : null;
          seen.push({ ...found, steps });
          // its output for `<round>.gguf`: the PEFT folder `<round>-peft`, the converted GGUF, the state `<round>.optim.pt`
          const stem = request.output.replace(/\.gguf$/, "");
          mkdirSync(`${stem}-peft`, { recursive: true });
          writeFileSync(join(`${stem}-peft`, "adapter_config.json"), JSON.stringify({ r: 4, round: request.round }));
          writeFileSync(`${stem}.optim.pt`, JSON.stringify({ steps: (steps ?? 0) + 1 }));
          await writeLoraAdapter(request.output, { base: tiny, seed: 3 + request.round, magnitude: 0.01 });
          return { adapterPath: request.output, metrics: { loss: 0.1 }, mismatch: null };
        },
        dispose: async () => undefined,
      }),
    })!;
    for (const iteration of [0, 1, 2]) expect(await step.afterIteration(iteration)).toBe("done");
    expect(listTrainingRounds(db, runId).map((round) => round.status)).toEqual(["completed", "completed", "completed"]);
    expect(seen[0]).toEqual({ peft: null, state: null, steps: null });
    for (const [k, found] of seen.slice(1).entries()) {
      // round k + 1 continues round k's PEFT adapter (installed as adapters/run-<id>-r<k>-peft) and its Adam state
      expect(found.peft).toBe(join(dir, "adapters", `run-${runId}-r${k}-peft`));
      expect(JSON.parse(readFileSync(join(found.peft!, "adapter_config.json"), "utf8"))).toEqual({ r: 4, round: k });
      expect(found.steps).toBe(k + 1);
    }
    expect(existsSync(join(dir, "adapters", `run-${runId}-r2-peft`, "adapter_config.json"))).toBe(true);
  }, 120_000);
});
