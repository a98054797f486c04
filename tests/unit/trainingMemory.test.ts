// What plays and trains where (issue 20 §5): the trainer's memory model, before download, and the recommendations built on it.
// tests/unit/trainingMemoryParity.test.ts holds it equal to resources/trainers/runtime/spade_memory.py.
import { describe, expect, it } from "vitest";
import { recommendationFits, recommendedModels, uriFor } from "../../shared/recommendedModels.js";
import {
  estimateTrainingMemory,
  loraParameters,
  microBatchShapes,
  modelParameters,
  predictTrainingPeak,
  runtimeOverheadBytes,
  trainingMemoryDevice,
  worstCaseLines,
  type ModelShape,
  type TrainingPeakInputs,
} from "../../shared/trainingMemory.js";

const GiB = 2 ** 30;
const qwen25_7b: ModelShape = { layers: 28, hidden: 3584, ffn: 18944, heads: 28, kvHeads: 4, headDim: 128, vocab: 152064 };
const byLabel = (start: string) => recommendedModels.find((m) => m.label.startsWith(start))!;
const allTargets = ["attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"] as const;

describe("the training memory model", () => {
  it("counts Qwen2.5-7B's parameters and LoRA parameters from its shapes", () => {
    expect(modelParameters(qwen25_7b) / 1e9).toBeCloseTo(7.62, 2);
    // rank 8 on q, k, v, o, gate, up, down of 28 layers
    expect(loraParameters(qwen25_7b, 8)).toBe(28 * 8 * (3584 + 3584 + 2 * (3584 + 512) + 3584 + 3584 + 2 * (3584 + 18944) + 18944 + 3584));
    expect(loraParameters(qwen25_7b, 8, ["attn_q"])).toBe(28 * 8 * (3584 + 3584));
  });

  it("groups lines into micro-batches as the trainer does", () => {
    // padded size count x longest within 100 tokens: [10, 6] together, 60 alone, then [30, 20, 10]
    expect(microBatchShapes([10, 6, 60, 30, 20, 10], [5, 3, 50, 1, 1, 1], 100)).toEqual([
      { sequences: 2, longest: 10, trained: 8, widest: 5 },
      { sequences: 1, longest: 60, trained: 50, widest: 50 },
      { sequences: 3, longest: 30, trained: 3, widest: 1 },
    ]);
    expect(worstCaseLines(1024, 4096)).toEqual({ lengths: [1024, 1024, 1024, 1024], trained: [1023, 1023, 1023, 1023] });
    expect(worstCaseLines(8192, 4096)).toEqual({ lengths: [8192], trained: [8191] });
  });

  it("adds the parts as the trainer's test works them out by hand", () => {
    // runtime/test_spade_memory.py's test_peak_by_hand: embedding 4, MLP 8, 2 heads of 2 (1 KV head), vocabulary 10, 3 layers
    const shape: ModelShape = { layers: 3, hidden: 4, ffn: 8, heads: 2, kvHeads: 1, headDim: 2, vocab: 10, tiedEmbeddings: true };
    const inputs: TrainingPeakInputs = {
      lengths: [10, 6],
      trained: [5, 3],
      hyper: { rank: 2, microBatchTokens: 100, outputChunkTokens: 512, checkpointing: true, logprobs: "reference", targets: allTargets },
      dtypeBytes: 4,
      heldWeightBytes: 1000,
      workingCopies: { block: 0, output: 0, outputPeak: 0 },
      fusedAttention: false,
      truncating: true,
    };
    const parts = predictTrainingPeak(shape, inputs);
    // block phase 20 tokens x 4 B x (7.75 x 4 + 6.75 x 8) + attention weights 1600 B x 2; kept: 3 block inputs + the trained hidden states and their gradient
    expect(parts.activations).toBeCloseTo(960 + 256 + 10000, 6);
    expect(parts.outputLayer).toBe(5 * 10 * 42);
    expect(parts.lora).toBe(16 * 384);
    expect(parts.peak).toBeCloseTo(1000 + 6144 + Math.max(11216, 1216 + 2100), 6);
    expect(predictTrainingPeak(shape, { ...inputs, hyper: { ...inputs.hyper, checkpointing: false } }).activations).toBeCloseTo(2 * 0.83 * 10000 + 256 + 10000, 6);
    expect(predictTrainingPeak(shape, { ...inputs, truncating: false }).outputLayer).toBe(5 * 10 * 12);
    const copies = predictTrainingPeak(shape, { ...inputs, workingCopies: { block: 100, output: 70000, outputPeak: 71000 } });
    expect(copies.peak).toBeCloseTo(1000 + 6144 + 1216 + 72100, 6);
    // the output matrix's dequantisation at its peak, where it is larger than the copy beside a chunk
    expect(predictTrainingPeak(shape, { ...inputs, workingCopies: { block: 100, output: 70000, outputPeak: 210000 } }).outputLayer).toBe(210000);
  });

  it("predicts a 7B Q4_K_M round under 20 GB with the default batch (about 11.2 GB, as the trainer), and checkpointing lowers the peak", () => {
    const e = estimateTrainingMemory(qwen25_7b, "Q4_K_M", { fileBytes: 4.68e9 });
    expect(e.total).toBeLessThan(20e9);
    expect(e.total / 1e9).toBeCloseTo(11.2, 1);
    // the largest round of a 4096-token context: one line, bf16, fused attention, the working copies of the largest projection and the
    // output matrix (both larger than 2^24 values, dequantised a block of rows at a time: a Q4_K block to bf16 peaks at 6.2 copies
    // of its result, beside the whole result)
    expect(e.inputs).toMatchObject({ lengths: [4096], trained: [4095], dtypeBytes: 2, fusedAttention: true, workingCopies: { output: 152064 * 3584 * 2 } });
    expect(e.inputs.workingCopies.block).toBeCloseTo(18944 * 3584 * 2 + 2 ** 24 * 2 * 6.2, 0);
    expect(e.inputs.workingCopies.outputPeak).toBeCloseTo(152064 * 3584 * 2 + 2 ** 24 * 2 * 6.2, 0);
    expect(e.inputs.hyper).toMatchObject({ rank: 32, microBatchTokens: 4096, outputChunkTokens: 512, checkpointing: true });
    expect(estimateTrainingMemory(qwen25_7b, "Q4_K_M", { checkpointing: false }).total).toBeGreaterThan(e.total + 10e9);
    // held as a dequantised copy: the weights at bf16, no working copies
    const full = estimateTrainingMemory(qwen25_7b, "Q4_K_M", { weights: "full" });
    expect(full.weights).toBe(modelParameters(qwen25_7b) * 2);
    expect(full.inputs.workingCopies).toEqual({ block: 0, output: 0, outputPeak: 0 });
  });

  it("the output layer's memory is bounded by its chunk, not the sequence length", () => {
    const short = estimateTrainingMemory(qwen25_7b, "Q4_K_M", { contextTokens: 2048 });
    const long = estimateTrainingMemory(qwen25_7b, "Q4_K_M", { contextTokens: 16384, microBatchTokens: 16384 });
    expect(long.outputLayer).toBe(short.outputLayer);
    expect(long.activations).toBeGreaterThan(short.activations);
    expect(estimateTrainingMemory(qwen25_7b, "Q4_K_M", { outputChunkTokens: 128 }).outputLayer).toBeLessThan(short.outputLayer);
  });

  it("on the CPU computes in float32 and keeps attention weights; CUDA is bf16 and fused", () => {
    expect(trainingMemoryDevice("cuda:1")).toBe("cuda");
    expect(trainingMemoryDevice("cpu")).toBe("cpu");
    expect(trainingMemoryDevice("mps")).toBe("cpu");
    expect(trainingMemoryDevice(null)).toBe("cuda");
    const cpu = estimateTrainingMemory(qwen25_7b, "Q4_K_M", { device: "cpu" });
    expect(cpu.inputs).toMatchObject({ dtypeBytes: 4, fusedAttention: false });
    expect(cpu.total).toBeGreaterThan(estimateTrainingMemory(qwen25_7b, "Q4_K_M").total);
  });
});

describe("the recommendations say what plays and what trains on which card", () => {
  it("list the Qwen3 instruct model the reference trains at 4B beside the coder models", () => {
    expect(byLabel("Qwen3 4B Instruct 2507").uri).toBe("hf:unsloth/Qwen3-4B-Instruct-2507-GGUF:Q4_K_M");
    expect(recommendedModels.some((m) => m.label.startsWith("Qwen2.5-Coder"))).toBe(true);
    expect(uriFor(byLabel("Qwen3 8B"), "Q8_0")).toBe("hf:Qwen/Qwen3-8B-GGUF:Q8_0");
  });

  it("give the trainer's prediction of the largest round, and train where it fits beside the runtime", () => {
    const fit = recommendationFits(byLabel("Qwen2.5-Coder 7B"), 16 * GiB).find((f) => f.quantisation === "Q4_K_M")!;
    expect(fit.trainBytes).toBe(estimateTrainingMemory(byLabel("Qwen2.5-Coder 7B").shape, "Q4_K_M", { fileBytes: 4.7e9 }).total);
    const edge = fit.trainBytes! + runtimeOverheadBytes;
    expect(recommendationFits(byLabel("Qwen2.5-Coder 7B"), edge)[0]!.trains).toBe(true);
    expect(recommendationFits(byLabel("Qwen2.5-Coder 7B"), edge - 1)[0]!.trains).toBe(false);
  });

  it.each([8, 16, 24])("on a %i GB card, each listed model it is picked for plays, and some model trains", (gb) => {
    for (const model of recommendedModels.filter((m) => m.memoryGb === gb)) {
      const q4 = recommendationFits(model, gb * GiB).find((f) => f.quantisation === "Q4_K_M")!;
      expect(q4.plays, model.label).toBe(true);
    }
    const trainable = recommendedModels.flatMap((m) => recommendationFits(m, gb * GiB).filter((f) => f.trains).map((f) => `${m.label} ${f.quantisation}`));
    expect(trainable.length, `${gb} GB`).toBeGreaterThan(0);
  });

  it("8 GB trains Coder 1.5B, and Qwen3 4B Q4_K_M with output chunks of 128; 16 GB trains the 7B; 24 GB the 14B; 32B Q4_K_M plays on 24 GB but does not train there", () => {
    const fit = (label: string, gb: number, q = "Q4_K_M", settings = {}) => recommendationFits(byLabel(label), gb * GiB, settings).find((f) => f.quantisation === q)!;
    expect(fit("Qwen2.5-Coder 1.5B", 8).trains).toBe(true);
    expect(fit("Qwen3 4B Instruct 2507", 8).plays).toBe(true);
    expect(fit("Qwen3 4B Instruct 2507", 8).trains).toBe(false);
    expect(fit("Qwen3 4B Instruct 2507", 8, "Q4_K_M", { outputChunkTokens: 128 }).trains).toBe(true);
    expect(fit("Qwen2.5-Coder 7B", 8).plays).toBe(true);
    expect(fit("Qwen2.5-Coder 7B", 8).trains).toBe(false);
    expect(fit("Qwen2.5-Coder 7B", 16).trains).toBe(true);
    expect(fit("Qwen3 8B", 16).trains).toBe(true);
    expect(fit("Qwen2.5-Coder 14B", 16).trains).toBe(false);
    expect(fit("Qwen2.5-Coder 14B", 24).trains).toBe(true);
    expect(fit("Qwen3 14B", 24).trains).toBe(true);
    expect(fit("Qwen2.5-Coder 32B", 24).plays).toBe(true);
    expect(fit("Qwen2.5-Coder 32B", 24).trains).toBe(false);
    expect(fit("Qwen2.5-Coder 32B", 32).trains).toBe(true);
    expect(fit("Qwen2.5-Coder 7B", 16, "F16").plays).toBe(true);
    expect(fit("Qwen2.5-Coder 7B", 16, "F16").trains).toBe(false);
  });
});
