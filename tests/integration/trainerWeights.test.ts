// training.weights: how the gguf trainer holds the base weights reaches the trainer worker from the
// run config ("quantized" by default, "full" when asked), and a wrong value is refused by key.
import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { createRoundTrainer } from "../../main/training/createRoundTrainer.js";
import { pythonHasTorch } from "../../main/training/resolveTrainerPython.js";

const python = "/usr/bin/python3";
const hasTorch = pythonHasTorch(python);
const stories = resolve(import.meta.dirname, "../../../shared/models/stories260K.gguf");
const run = (training: Record<string, unknown>) =>
  parseRunConfig({ db: "ws.sqlite", seed: 1, corpus: null, backend: { kind: "llama", modelPath: stories }, training: { every: 1, python, threads: 1, epochs: 1, ...training } }, "run.json");

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "spade-trainer-weights-"));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("training.weights", () => {
  it('defaults to "quantized", takes "full", and refuses anything else naming the key', () => {
    expect(run({}).training!.weights).toBe("quantized");
    expect(run({ weights: "full" }).training!.weights).toBe("full");
    expect(() => run({ weights: "half" })).toThrow(/training\.weights: expected one of "quantized", "full", got "half"/);
  });

  it.skipIf(!hasTorch)("reaches the gguf trainer worker", async () => {
    const batch = join(dir, "batch.jsonl");
    const line = (advantage: number) => ({ role: "agent", tokens: [1, 403, 407, 261, 1000 % 512], mask: [0, 0, 1, 1, 1], behaviorLogprobs: [null, null, null, null, null], advantage, ref: { runId: 1, environmentId: 1, episodeId: 1, turn: 0, attempt: null }, adapter: null });
    writeFileSync(batch, [line(1), line(-1)].map((x) => JSON.stringify(x)).join("\n") + "\n");
    for (const weights of ["quantized", "full"] as const) {
      const config = run(weights === "full" ? { weights } : {}).training!;
      const logs: string[] = [];
      const trainer = await createRoundTrainer(config, { onLog: (text) => logs.push(text), threads: 1, device: "cpu" });
      try {
        await trainer.train({ round: 1, batch, baseModel: stories, parentAdapter: null, output: join(dir, `${weights}.gguf`), hyper: { ...config.hyper, seed: 1 } }, {});
      } finally {
        await trainer.dispose();
      }
      expect(logs.join("\n")).toMatch(new RegExp(`\\[gguf\\] loading .*stories260K\\.gguf on cpu as torch\\.float32, weights ${weights}`));
    }
  }, 120_000);
});
