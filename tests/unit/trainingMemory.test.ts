// What plays and trains where (issue 20 §5): the documented memory formula and the recommendations built on it.
import { describe, expect, it } from "vitest";
import { recommendationFits, recommendedModels, uriFor } from "../../shared/recommendedModels.js";
import { estimateTrainingMemory, layerParameters, loraParameters, modelParameters, trainingMemoryCoefficients as c, type ModelShape } from "../../shared/trainingMemory.js";

const GiB = 2 ** 30;
const qwen25_7b: ModelShape = { layers: 28, hidden: 3584, ffn: 18944, heads: 28, kvHeads: 4, headDim: 128, vocab: 152064 };
const byLabel = (start: string) => recommendedModels.find((m) => m.label.startsWith(start))!;

describe("the training memory formula", () => {
  it("counts Qwen2.5-7B's parameters and LoRA parameters from its shapes", () => {
    expect(modelParameters(qwen25_7b) / 1e9).toBeCloseTo(7.62, 2);
    // rank 8 on q, k, v, o, gate, up, down of 28 layers
    expect(loraParameters(qwen25_7b, 8)).toBe(28 * 8 * (3584 + 3584 + 2 * (3584 + 512) + 3584 + 3584 + 2 * (3584 + 18944) + 18944 + 3584));
  });

  it("is the sum of its documented parts", () => {
    const e = estimateTrainingMemory(qwen25_7b, "Q4_K_M");
    expect(e.baseWeights).toBeCloseTo((modelParameters(qwen25_7b) * 4.85) / 8, 0);
    expect(e.dequantisedLayer).toBe(layerParameters(qwen25_7b) * 2);
    expect(e.lora).toBe(loraParameters(qwen25_7b, 8) * 16);
    expect(e.activations).toBe(28 * 4096 * 2 * 3584 + 4096 * 16 * (3584 + 18944));
    expect(e.outputLayer).toBe(152064 * 3584 * 2 + 1024 * 152064 * 12);
    expect(e.total).toBeCloseTo(e.baseWeights + e.dequantisedLayer + e.lora + e.activations + e.outputLayer + c.overheadBytes, 0);
  });

  it("predicts a 7B Q4_K_M round under 20 GB with the default batch, and checkpointing lowers the peak", () => {
    expect(estimateTrainingMemory(qwen25_7b, "Q4_K_M").total).toBeLessThan(20e9);
    expect(estimateTrainingMemory(qwen25_7b, "Q4_K_M", { checkpointing: false }).total).toBeGreaterThan(estimateTrainingMemory(qwen25_7b, "Q4_K_M").total);
  });

  it("the output layer's memory is bounded by its chunk, not the tokens going through", () => {
    const small = estimateTrainingMemory(qwen25_7b, "Q4_K_M", { microBatchTokens: 2048 });
    const large = estimateTrainingMemory(qwen25_7b, "Q4_K_M", { microBatchTokens: 16384 });
    expect(large.outputLayer).toBe(small.outputLayer);
    expect(large.activations).toBeGreaterThan(small.activations);
  });
});

describe("the recommendations say what plays and what trains on which card", () => {
  it("list the Qwen3 instruct model the reference trains at 4B beside the coder models", () => {
    expect(byLabel("Qwen3 4B Instruct 2507").uri).toBe("hf:unsloth/Qwen3-4B-Instruct-2507-GGUF:Q4_K_M");
    expect(recommendedModels.some((m) => m.label.startsWith("Qwen2.5-Coder"))).toBe(true);
    expect(uriFor(byLabel("Qwen3 8B"), "Q8_0")).toBe("hf:Qwen/Qwen3-8B-GGUF:Q8_0");
  });

  it.each([8, 16, 24])("on a %i GB card, each listed model it is picked for plays, and some model trains", (gb) => {
    for (const model of recommendedModels.filter((m) => m.memoryGb === gb)) {
      const q4 = recommendationFits(model, gb * GiB).find((f) => f.quantisation === "Q4_K_M")!;
      expect(q4.plays, model.label).toBe(true);
    }
    const trainable = recommendedModels.flatMap((m) => recommendationFits(m, gb * GiB).filter((f) => f.trains).map((f) => `${m.label} ${f.quantisation}`));
    expect(trainable.length, `${gb} GB`).toBeGreaterThan(0);
  });

  it("8 GB trains Qwen3 4B Q4_K_M but not Qwen2.5-Coder 7B; 16 GB trains the 7B; 32B Q4_K_M plays on 24 GB but does not train there", () => {
    const fit = (label: string, gb: number, q = "Q4_K_M") => recommendationFits(byLabel(label), gb * GiB).find((f) => f.quantisation === q)!;
    expect(fit("Qwen3 4B Instruct 2507", 8).trains).toBe(true);
    expect(fit("Qwen2.5-Coder 7B", 8).plays).toBe(true);
    expect(fit("Qwen2.5-Coder 7B", 8).trains).toBe(false);
    expect(fit("Qwen2.5-Coder 7B", 16).trains).toBe(true);
    expect(fit("Qwen2.5-Coder 32B", 24).plays).toBe(true);
    expect(fit("Qwen2.5-Coder 32B", 24).trains).toBe(false);
    expect(fit("Qwen2.5-Coder 7B", 16, "F16").plays).toBe(true);
    expect(fit("Qwen2.5-Coder 7B", 16, "F16").trains).toBe(false);
  });
});
