// Adam continues on the server path as on the local path: three rounds of the real "gguf" trainer
// (real gradient steps on a random-weight llama GGUF) on the same batches, once registered as a
// local run registers (GGUF adapters switched into llama.cpp) and once as a server run does (adapter
// folders loaded into the server); the optimiser state written after round 3 holds the same moments
// and step count on both paths. A server path that dropped the state would restart Adam every round.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatResult } from "../../shared/llm.js";
import { parseRunConfig } from "../../shared/runConfig.js";
import type { LlmBackend } from "../../main/llm/LlmBackend.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { getAdapter } from "../../main/store/queries/adapters.js";
import { upsertEnvStats } from "../../main/store/queries/envStats.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { insertEpisodeWithTurns } from "../../main/store/queries/episodes.js";
import { createRun } from "../../main/store/queries/runs.js";
import { listTrainingRounds } from "../../main/store/queries/trainingRounds.js";
import { createRoundTrainer } from "../../main/training/createRoundTrainer.js";
import { optimizerStatePath } from "../../main/training/optimizerStatePath.js";
import { pythonHasTorch } from "../../main/training/resolveTrainerPython.js";
import { TrainingRound } from "../../main/training/TrainingRound.js";
import { writeTinyLlamaModel, type TinyLlamaModel } from "../support/ggufWriter.js";

const python = "/usr/bin/python3";
const hasTorch = pythonHasTorch(python);
if (!hasTorch) console.warn(`trainingServerAdam skipped: ${python} cannot import torch (apt-get install python3-torch)`);

let dir: string;
let tiny: TinyLlamaModel;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "spade-adam-paths-"));
  tiny = await writeTinyLlamaModel(join(dir, "tiny.gguf"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A backend that only takes adapters (local: switched in; server: loaded by name). */
function stubBackend(serving: "local" | "server"): LlmBackend & { taken: string[] } {
  const taken: string[] = [];
  const base = { name: "stub", parallelism: 1, adapter: null, taken, chat: async (): Promise<ChatResult> => Promise.reject(new Error("not used")), dispose: async () => undefined };
  return serving === "local"
    ? { ...base, setAdapters: async (lora) => void taken.push(lora.map((spec) => spec.path).join("+")) }
    : { ...base, loadAdapter: async (path) => void taken.push(path) };
}

/** Three rounds on the same data, registered as `serving` registers; the last adapter's optimiser state file. */
async function threeRounds(serving: "local" | "server"): Promise<{ stateFile: string; steps: number[]; taken: string[] }> {
  const db = openDatabase(join(dir, `${serving}.sqlite`));
  try {
    const config = parseRunConfig(
      { db: join(dir, `${serving}.sqlite`), seed: 11, backend: { kind: "llama", modelPath: tiny.path, gpu: false }, corpus: null, training: { every: 1, trainer: "gguf", python, threads: 1, rank: 4, alpha: 8, learningRate: 0.01 } },
      "adam.json",
    );
    const runId = createRun(db, { seed: 11 }).id;
    for (const iteration of [0, 1, 2]) {
      const env = insertEnvironment(db, { runId, iteration, slot: 0, attempt: 0, source: "designer", skill: "S", code: "class E: pass", valid: true });
      upsertEnvStats(db, { environmentId: env, plays: 2, hintPlays: 0, designerReward: 0.5, rewardKind: "blend" });
      for (const play of [0, 1]) {
        insertEpisodeWithTurns(db, { runId, environmentId: env, hinted: false, playIndex: play, return: play }, [
          { messages: [{ role: "user", content: "x" }], reward: play, terminated: true, promptTokenIds: [1, 2 + iteration, 3], tokenIds: [4 + play, 5 + iteration], tokenLogprobs: null },
        ]);
      }
    }
    const backend = stubBackend(serving);
    const training = config.training!;
    const round = new TrainingRound({ db, runId, seed: 11, config: training, schedule: config, backend, baseModelPath: tiny.path, serving, createTrainer: () => createRoundTrainer(training, { threads: 1 }) });
    try {
      for (const iteration of [0, 1, 2]) expect(await round.afterIteration(iteration)).toBe("done");
    } finally {
      await round.dispose();
    }
    const rounds = listTrainingRounds(db, runId);
    expect(rounds.map((r) => r.status)).toEqual(["completed", "completed", "completed"]);
    return { stateFile: optimizerStatePath(getAdapter(db, rounds[2]!.adapterId!)!.path), steps: rounds.map((r) => r.metrics.optimizerSteps as number), taken: backend.taken };
  } finally {
    db.close();
  }
}

describe.skipIf(!hasTorch)("Adam's state on the server path", () => {
  it("continues over three rounds exactly as on the local path, on the same batches", async () => {
    const local = await threeRounds("local");
    const server = await threeRounds("server");
    expect(local.steps).toEqual([1, 2, 3]);
    expect(server.steps).toEqual([1, 2, 3]);
    // each round's adapter was put in use before the next rollout
    expect(server.taken).toHaveLength(3);
    // the moments after round 3, tensor by tensor
    const compare = `
import sys, torch
a, b = (torch.load(p, map_location="cpu") for p in sys.argv[1:3])
sa, sb = a["state"]["state"], b["state"]["state"]
assert a["shapes"] == b["shapes"] and len(sa) == len(sb) > 0, "different tensors"
worst = max(max((sa[k]["exp_avg"] - sb[k]["exp_avg"]).abs().max().item(), (sa[k]["exp_avg_sq"] - sb[k]["exp_avg_sq"]).abs().max().item()) for k in sa)
scale = max(sa[k]["exp_avg"].abs().max().item() for k in sa)
print(len(sa), int(sa[0]["step"]), int(sb[0]["step"]), worst, scale)
`;
    const result = spawnSync(python, ["-c", compare, local.stateFile, server.stateFile], { encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    const [tensors, stepsLocal, stepsServer, worst, scale] = result.stdout.trim().split(" ").map(Number);
    console.log(`Adam after 3 rounds: ${tensors} tensors, steps ${stepsLocal} / ${stepsServer}, max |moment difference| ${worst} (first moments up to ${scale})`);
    expect([stepsLocal, stepsServer]).toEqual([3, 3]);
    expect(scale).toBeGreaterThan(0);
    expect(worst).toBeLessThanOrEqual(scale! * 1e-6);
  }, 300_000);
});
