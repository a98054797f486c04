// Models that write Python well enough for SPADE's designer, by what they need to play and to
// train. The URIs are node-llama-cpp's `hf:<user>/<repo>:<quantisation>` form, which the Models
// page's download box and a run config's backend.modelPath both accept. Memory needs come from
// shared/trainingMemory.ts, before download: to train, the trainer's own memory model
// (resources/trainers/runtime/spade_memory.py) for the largest round of the default settings.
import { bitsPerWeight, estimatePlayMemory, estimateTrainingMemory, modelParameters, runtimeOverheadBytes, type ModelShape, type Quantisation, type TrainingMemorySettings } from "./trainingMemory.js";

export interface RecommendedModel {
  /** What to call it. */
  label: string;
  /** The Q4_K_M file; `uriFor` gives the other quantisations. */
  uri: string;
  /** The Q4_K_M download's size in GB (about). */
  fileGb: number;
  /** GPU memory (or, CPU only, RAM) it is picked for, to play, in GB. */
  memoryGb: 4 | 8 | 16 | 24;
  /** Why this one. */
  note: string;
  /** Its layer shapes (from the model's config.json), for the memory estimates. */
  shape: ModelShape;
  /** The quantisations its GGUF repository has. */
  quantisations: Quantisation[];
  /** Whether the built-in gguf trainer trains its architecture (llama, qwen2, qwen3). Defaults to true. */
  trainable?: boolean;
}

const qwen25 = (layers: number, hidden: number, ffn: number, heads: number, kvHeads: number, tied = false): ModelShape => ({ layers, hidden, ffn, heads, kvHeads, headDim: 128, vocab: 152064, tiedEmbeddings: tied });
const qwen3 = (layers: number, hidden: number, ffn: number, heads: number, tied = false): ModelShape => ({ layers, hidden, ffn, heads, kvHeads: 8, headDim: 128, vocab: 151936, tiedEmbeddings: tied });
const common: Quantisation[] = ["Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0"];

export const recommendedModels: readonly RecommendedModel[] = [
  { label: "Qwen2.5-Coder 1.5B Instruct (Q4_K_M)", uri: "hf:bartowski/Qwen2.5-Coder-1.5B-Instruct-GGUF:Q4_K_M", fileGb: 1.0, memoryGb: 4, note: "small and quick, on a laptop CPU too; many of its environments will be invalid", shape: qwen25(28, 1536, 8960, 12, 2, true), quantisations: [...common, "F16"] },
  { label: "Qwen3 4B Instruct 2507 (Q4_K_M)", uri: "hf:unsloth/Qwen3-4B-Instruct-2507-GGUF:Q4_K_M", fileGb: 2.5, memoryGb: 8, note: "the model the SPADE reference trains at 4B: plays on an 8 GB GPU and trains there with training.outputChunkTokens 128 (the default 512 needs about 9 GB)", shape: qwen3(36, 2560, 9728, 32, true), quantisations: [...common, "F16"] },
  { label: "Qwen2.5-Coder 7B Instruct (Q4_K_M)", uri: "hf:bartowski/Qwen2.5-Coder-7B-Instruct-GGUF:Q4_K_M", fileGb: 4.7, memoryGb: 8, note: "the first model to try on an 8 GB GPU: writes valid environments most of the time; trains on 12 GB", shape: qwen25(28, 3584, 18944, 28, 4), quantisations: [...common, "F16"] },
  { label: "Llama 3.1 8B Instruct (Q4_K_M)", uri: "hf:bartowski/Meta-Llama-3.1-8B-Instruct-GGUF:Q4_K_M", fileGb: 4.9, memoryGb: 8, note: "a general model of the same size, for comparison", shape: { layers: 32, hidden: 4096, ffn: 14336, heads: 32, kvHeads: 8, headDim: 128, vocab: 128256 }, quantisations: [...common, "F16"] },
  { label: "Qwen3 8B (Q4_K_M)", uri: "hf:Qwen/Qwen3-8B-GGUF:Q4_K_M", fileGb: 5.0, memoryGb: 8, note: "the reference's 8B games model (thinking on there): plays on 8 GB, trains on 16 GB", shape: qwen3(36, 4096, 12288, 32), quantisations: common },
  { label: "Qwen2.5-Coder 14B Instruct (Q4_K_M)", uri: "hf:bartowski/Qwen2.5-Coder-14B-Instruct-GGUF:Q4_K_M", fileGb: 9.0, memoryGb: 16, note: "for 16 GB: better designs, about half the speed of 7B; trains on 24 GB", shape: qwen25(48, 5120, 13824, 40, 8), quantisations: [...common, "F16"] },
  { label: "Qwen3 14B (Q4_K_M)", uri: "hf:Qwen/Qwen3-14B-GGUF:Q4_K_M", fileGb: 9.0, memoryGb: 16, note: "plays on 16 GB, trains on 24 GB", shape: qwen3(40, 5120, 17408, 40), quantisations: common },
  { label: "Qwen2.5-Coder 32B Instruct (Q4_K_M)", uri: "hf:bartowski/Qwen2.5-Coder-32B-Instruct-GGUF:Q4_K_M", fileGb: 19.9, memoryGb: 24, note: "for 24 GB: the strongest designer of the list; trains on 32 GB and more", shape: qwen25(64, 5120, 27648, 40, 8), quantisations: [...common, "F16"] },
];

/** The URI of another quantisation of the same repository. */
export function uriFor(model: RecommendedModel, quantisation: Quantisation): string {
  return model.uri.replace(/:[^:]+$/, `:${quantisation}`);
}

/** What one quantisation of a listed model needs, and whether it plays and trains in `memoryBytes`. */
export interface RecommendationFit {
  quantisation: Quantisation;
  uri: string;
  fileBytes: number;
  playBytes: number;
  /** The trainer's predicted peak of the largest round (spade_memory.predict, what it checks before rollout 0); null: the built-in trainer does not train this architecture. */
  trainBytes: number | null;
  plays: boolean;
  /** Whether the predicted peak and the runtime's overhead (memory the trainer's free-memory check never sees) fit. */
  trains: boolean;
}

/**
 * Play and training memory of each quantisation of `model`, against a device of `memoryBytes` (the
 * GPU's, or RAM on a CPU). `training`: the run's training settings and the trainer's device
 * (`fileBytes` is the quantisation's own). Defaults to the default settings on a CUDA GPU.
 */
export function recommendationFits(model: RecommendedModel, memoryBytes: number, training: TrainingMemorySettings = {}): RecommendationFit[] {
  return model.quantisations.map((quantisation) => {
    const fileBytes = quantisation === "Q4_K_M" ? model.fileGb * 1e9 : (modelParameters(model.shape) * bitsPerWeight[quantisation]) / 8;
    const playBytes = estimatePlayMemory(model.shape, fileBytes);
    const trainBytes = model.trainable === false ? null : estimateTrainingMemory(model.shape, quantisation, { ...training, fileBytes }).total;
    return { quantisation, uri: uriFor(model, quantisation), fileBytes, playBytes, trainBytes, plays: playBytes <= memoryBytes, trains: trainBytes !== null && trainBytes + runtimeOverheadBytes <= memoryBytes };
  });
}
