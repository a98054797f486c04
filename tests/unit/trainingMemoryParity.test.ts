// The memory figures shown before download (shared/trainingMemory.ts) are the trainer's own
// prediction (resources/trainers/runtime/spade_memory.py): the same inputs through both give the same
// parts, for real model shapes and settings that reach every coefficient of the model.
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { pythonHasTorch } from "../../main/training/resolveTrainerPython.js";
import { estimateTrainingMemory, type ModelShape, type Quantisation, type TrainingMemorySettings, type TrainingPeak } from "../../shared/trainingMemory.js";

const python = "/usr/bin/python3";
const hasTorch = pythonHasTorch(python);
if (!hasTorch) console.warn(`trainingMemoryParity skipped: ${python} cannot import torch (apt-get install python3-torch)`);
const root = resolve(import.meta.dirname, "..", "..");

const shapes: Record<string, ModelShape> = {
  "Qwen2.5-Coder 7B": { layers: 28, hidden: 3584, ffn: 18944, heads: 28, kvHeads: 4, headDim: 128, vocab: 152064 },
  "Qwen2.5-Coder 14B": { layers: 48, hidden: 5120, ffn: 13824, heads: 40, kvHeads: 8, headDim: 128, vocab: 152064 },
  "Qwen2.5-Coder 32B": { layers: 64, hidden: 5120, ffn: 27648, heads: 40, kvHeads: 8, headDim: 128, vocab: 152064 },
  "Qwen3-4B": { layers: 36, hidden: 2560, ffn: 9728, heads: 32, kvHeads: 8, headDim: 128, vocab: 151936, tiedEmbeddings: true },
  "Qwen2.5-Coder 1.5B": { layers: 28, hidden: 1536, ffn: 8960, heads: 12, kvHeads: 2, headDim: 128, vocab: 151936, tiedEmbeddings: true },
  // spade_random_model's "tiny" at 4 layers
  tiny: { layers: 4, hidden: 256, ffn: 688, heads: 8, kvHeads: 4, headDim: 32, vocab: 4096, tiedEmbeddings: true },
};

type Case = { model: string; quantisation: Quantisation; settings: TrainingMemorySettings };
const cases: Case[] = [
  // the defaults on a GPU (bf16, fused attention, the dequantisations' bf16 peaks)
  ...["Qwen2.5-Coder 7B", "Qwen2.5-Coder 14B", "Qwen2.5-Coder 32B", "Qwen3-4B", "Qwen2.5-Coder 1.5B"].map((model) => ({ model, quantisation: "Q4_K_M" as const, settings: {} })),
  { model: "Qwen2.5-Coder 7B", quantisation: "Q8_0", settings: { fileBytes: 8.1e9, rank: 8, outputChunkTokens: 128 } },
  // weights held as a dequantised copy: no working copies
  { model: "Qwen2.5-Coder 7B", quantisation: "F16", settings: { weights: "full" } },
  // without checkpointing (KEPT_SHARE), the reference's full softmax over unsampled lines (OUT_FULL)
  { model: "Qwen2.5-Coder 14B", quantisation: "Q5_K_M", settings: { checkpointing: false, truncating: false, contextTokens: 2048 } },
  // on the CPU: float32, attention weights kept beside the block
  { model: "Qwen2.5-Coder 7B", quantisation: "Q4_K_M", settings: { device: "cpu", fileBytes: 4.68e9 } },
  { model: "Qwen3-4B", quantisation: "Q6_K", settings: { device: "cpu", contextTokens: 8192 } },
  { model: "Qwen2.5-Coder 1.5B", quantisation: "Q4_K_M", settings: { device: "cpu", rank: 16, targets: ["attn_q", "attn_v"], logprobs: "sampling", truncating: false } },
  // a small model: E- and F-wide rows, attention weights beside the block, the sort's and the softmax's chunks
  { model: "tiny", quantisation: "F16", settings: { device: "cpu", lines: { lengths: [256, 200, 128, 64], trained: [128, 100, 60, 30] }, microBatchTokens: 1024 } },
  { model: "tiny", quantisation: "Q8_0", settings: { device: "cpu", contextTokens: 1024, outputChunkTokens: 64 } },
  { model: "tiny", quantisation: "Q4_K_M", settings: { device: "cpu", lines: { lengths: [300, 120, 90], trained: [200, 60, 40] }, microBatchTokens: 400, truncating: false, checkpointing: false } },
  // attention weights beside a block about ten times their size
  { model: "tiny", quantisation: "Q8_0", settings: { device: "cpu", lines: { lengths: [295], trained: [200] } } },
  // one long line of a wide model
  { model: "Qwen2.5-Coder 1.5B", quantisation: "Q8_0", settings: { device: "cpu", lines: { lengths: [700], trained: [600] } } },
];

function pythonCase(shape: ModelShape, quantisation: Quantisation, estimate: ReturnType<typeof estimateTrainingMemory>, settings: TrainingMemorySettings) {
  const { inputs } = estimate;
  return {
    shape: { embd: shape.hidden, ffn: shape.ffn, heads: shape.heads, kv_heads: shape.kvHeads, head_dim: shape.headDim, vocab: shape.vocab, layers: shape.layers, tied: shape.tiedEmbeddings ?? false },
    quantisation: settings.weights === "full" ? "full" : quantisation,
    ...(settings.lines ? { lengths: inputs.lengths, trained: inputs.trained } : { longest: settings.contextTokens ?? 4096 }),
    hyper: { ...inputs.hyper, targets: [...inputs.hyper.targets] },
    dtypeBytes: inputs.dtypeBytes,
    heldWeightBytes: inputs.heldWeightBytes,
    fusedAttention: inputs.fusedAttention,
    truncating: inputs.truncating,
  };
}

describe.skipIf(!hasTorch)("the training memory estimate is the trainer's memory model", () => {
  it("gives spade_memory.predict's parts (to float rounding) for the recommended shapes and settings", () => {
    const estimates = cases.map((c) => estimateTrainingMemory(shapes[c.model]!, c.quantisation, c.settings));
    const input = JSON.stringify(cases.map((c, i) => pythonCase(shapes[c.model]!, c.quantisation, estimates[i]!, c.settings)));
    const result = spawnSync(python, [resolve(root, "tests/fixtures/trainers/memory_predict.py")], {
      input,
      env: { ...process.env, PYTHONPATH: resolve(root, "resources/trainers"), PYTHONDONTWRITEBYTECODE: "1" },
      encoding: "utf8",
    });
    expect(result.status, result.stderr).toBe(0);
    const predicted = JSON.parse(result.stdout) as Array<TrainingPeak & { workingCopies: { block: number; output: number; outputPeak: number } }>;
    expect(predicted).toHaveLength(cases.length);
    cases.forEach((c, i) => {
      const ts = estimates[i]!;
      const py = predicted[i]!;
      const label = `${c.model} ${c.quantisation} ${JSON.stringify(c.settings)}`;
      for (const part of ["weights", "lora", "activations", "outputLayer", "outputKept", "peak"] as const) {
        expect(Math.abs(ts[part] - py[part]), `${label}: ${part} ${ts[part]} vs ${py[part]}`).toBeLessThanOrEqual(1e-9 * py[part]);
      }
      expect(ts.inputs.workingCopies, label).toEqual(py.workingCopies);
      expect(ts.total).toBe(ts.peak);
    });
  });
});
