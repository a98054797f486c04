// How much device memory a model needs to play (llama.cpp) and to train (the built-in gguf
// trainer, QLoRA-style), before anything is downloaded.
//
// The training peak is the trainer's own memory model, resources/trainers/runtime/spade_memory.py
// (`predict`), written out again here term by term with the same constants: what the Models page
// and the recommendations say before download is what the trainer predicts and checks before the
// first round. The two must stay in step: tests/unit/trainingMemoryParity.test.ts runs the Python
// `predict()` on the same inputs and fails when either side changes alone.
import { defaultTrainingHyper, type TrainingHyper } from "./trainingConfig.js";

/** The layer shapes of a decoder-only transformer (the llama / qwen2 / qwen3 family). */
export interface ModelShape {
  layers: number;
  hidden: number;
  /** The feed-forward (MLP) width. */
  ffn: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  vocab: number;
  /** Whether the output layer is the embedding matrix (no separate output weights). Defaults to false. */
  tiedEmbeddings?: boolean;
}

/** Bits per weight of a GGUF file type, averaged over a typical file (embeddings and output included). */
export const bitsPerWeight = { Q4_K_M: 4.85, Q5_K_M: 5.69, Q6_K: 6.56, Q8_0: 8.5, F16: 16 } as const;
export type Quantisation = keyof typeof bitsPerWeight;

/** The projections a LoRA can adapt (spade_grpo.TARGETS). */
export const loraTargets = ["attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"] as const;
export type LoraTarget = (typeof loraTargets)[number];

/**
 * runtime/spade_memory.py's constants, with its names. Keep them equal to the Python ones (the parity test
 * checks every value through `predict()`); their measurement is documented there.
 */
export const trainingMemoryCoefficients = {
  /** ACT_E: elements per token per unit of hidden width of a recomputed block at its backward's widest point. */
  actE: 7.75,
  /** ACT_F: the same per unit of FFN width. */
  actF: 6.75,
  /** ACT_ATTN: float32 attention-weight copies per (sequence, head, query, key) beside the rest of the block, where attention is not fused. */
  actAttn: 2.0,
  /** KEPT_SHARE: without checkpointing, the share of a block phase's activations every other block keeps to the backward pass. */
  keptShare: 0.83,
  /** OUT_FULL: bytes per (position x vocabulary entry) of an output chunk under the reference's full softmax. */
  outFull: 12.0,
  /** OUT_SAMPLING: the same under the sampling transform (its top-p sort is the widest temporary). */
  outSampling: 42.0,
  /** Bytes per LoRA parameter: fp32 weight, gradient, Adam's two moments. */
  loraParamBytes: 16,
} as const;

/**
 * spade_quants.DEQUANT_PEAK of the type a quantisation's projections have (Q4_K_M: Q4_K, Q5_K_M: Q5_K): the resident
 * peak of dequantising one tensor, in copies of its result, for a float32 and a bfloat16 result.
 */
export const dequantPeak: Record<Quantisation, { float32: number; bfloat16: number }> = {
  Q4_K_M: { float32: 3.1, bfloat16: 6.2 },
  Q5_K_M: { float32: 3.35, bfloat16: 6.7 },
  Q6_K: { float32: 2.65, bfloat16: 5.3 },
  Q8_0: { float32: 2.05, bfloat16: 4.1 },
  F16: { float32: 1.0, bfloat16: 3.0 },
};

/**
 * Device memory the trainer's free-memory check never sees (the CUDA context, other processes'
 * slack) and llama.cpp's own runtime: added to the play estimate, and to the training peak when it
 * is compared with a device's total memory.
 */
export const runtimeOverheadBytes = 0.75 * 2 ** 30;

/** Weights per layer: attention q/k/v/o and the MLP's gate/up/down. */
export function layerParameters(shape: ModelShape): number {
  const q = shape.hidden * shape.heads * shape.headDim;
  const kv = 2 * shape.hidden * shape.kvHeads * shape.headDim;
  const o = shape.heads * shape.headDim * shape.hidden;
  return q + kv + o + 3 * shape.hidden * shape.ffn;
}

/** All weights: the layers, the embeddings and (untied) the output layer. */
export function modelParameters(shape: ModelShape): number {
  return shape.layers * layerParameters(shape) + shape.vocab * shape.hidden * (shape.tiedEmbeddings ? 1 : 2);
}

/** (in, out) of each projection a LoRA can adapt. */
function projectionDims(shape: ModelShape): Record<LoraTarget, [number, number]> {
  const e = shape.hidden;
  const q = shape.heads * shape.headDim;
  const kv = shape.kvHeads * shape.headDim;
  return { attn_q: [e, q], attn_k: [e, kv], attn_v: [e, kv], attn_output: [q, e], ffn_gate: [e, shape.ffn], ffn_up: [e, shape.ffn], ffn_down: [shape.ffn, e] };
}

/** LoRA parameters (spade_memory.lora_parameters): rank x (in + out) per adapted projection per layer. */
export function loraParameters(shape: ModelShape, rank: number, targets: readonly LoraTarget[] = loraTargets): number {
  const dims = projectionDims(shape);
  return shape.layers * targets.reduce((sum, t) => sum + rank * (dims[t][0] + dims[t][1]), 0);
}

/** One micro-batch as spade_grpo.micro_batches groups lines: sequences, the longest, trained tokens, and the most trained tokens of one line. */
export interface MicroBatchShape {
  sequences: number;
  longest: number;
  trained: number;
  widest: number;
}

/** The micro-batches of a batch (spade_memory.micro_batch_shapes): lines in order, a group closed when its padded size would pass `microBatchTokens`. */
export function microBatchShapes(lengths: readonly number[], trained: readonly number[], microBatchTokens: number): MicroBatchShape[] {
  const groups: MicroBatchShape[] = [];
  let current: MicroBatchShape = { sequences: 0, longest: 0, trained: 0, widest: 0 };
  lengths.forEach((n, i) => {
    const t = trained[i] ?? 0;
    if (current.sequences > 0 && Math.max(current.longest, n) * (current.sequences + 1) > microBatchTokens) {
      groups.push(current);
      current = { sequences: 0, longest: 0, trained: 0, widest: 0 };
    }
    current = { sequences: current.sequences + 1, longest: Math.max(current.longest, n), trained: current.trained + t, widest: Math.max(current.widest, t) };
  });
  if (current.sequences > 0) groups.push(current);
  return groups;
}

/** Bytes of one block's activations and gradients at the widest point of its backward pass (spade_memory.block_phase_activations). */
export function blockPhaseActivations(shape: ModelShape, sequences: number, longest: number, dtypeBytes: number, fusedAttention: boolean): number {
  const c = trainingMemoryCoefficients;
  const tokens = sequences * longest;
  const e = shape.hidden;
  const f = shape.ffn;
  const act = tokens * dtypeBytes * (e * c.actE + f * c.actF);
  return fusedAttention ? act : act + sequences * shape.heads * longest * longest * 4 * c.actAttn;
}

/** Bytes of one output-layer chunk's temporaries, `rows` positions x the vocabulary (spade_memory.output_chunk_bytes). */
export function outputChunkBytes(rows: number, vocab: number, samplingTransform: boolean): number {
  const c = trainingMemoryCoefficients;
  return rows * vocab * (samplingTransform ? c.outSampling : c.outFull);
}

/** The dequantised copies a round makes of its base weights (spade_memory.WorkingCopies): one projection at a time in the blocks, the output matrix whole. */
export interface WorkingCopies {
  /** The largest projection's dequantisation at its peak (the dequantiser's intermediate arrays beside the result). */
  block: number;
  /** The output matrix's copy. */
  output: number;
  /** The output matrix's dequantisation at its peak. */
  outputPeak: number;
}

/** The memory settings of a round that `predictTrainingPeak` reads (a run config's training.hyper). */
export type TrainingMemoryHyper = Pick<TrainingHyper, "rank" | "microBatchTokens" | "outputChunkTokens" | "checkpointing" | "logprobs"> & { targets: readonly LoraTarget[] };

/** Everything spade_memory.predict takes besides the shape: the trainer's inputs, as it derives them from a loaded model. */
export interface TrainingPeakInputs {
  /** Each batch line's tokens. */
  lengths: number[];
  /** Each batch line's trained tokens. */
  trained: number[];
  hyper: TrainingMemoryHyper;
  /** Bytes of the compute dtype (2: bf16 on CUDA, 4: float32 on the CPU). */
  dtypeBytes: number;
  /** The base weights as the trainer holds them. */
  heldWeightBytes: number;
  workingCopies: WorkingCopies;
  /** Whether attention is fused (CUDA in bf16: no attention weights kept). */
  fusedAttention: boolean;
  /** Whether the lines were sampled with top-k, top-p or min-p (the recorded function's sort sets the chunk's width). */
  truncating: boolean;
}

/** The parts of a training peak, in bytes (spade_memory.predict's names), and the peak. */
export interface TrainingPeak {
  weights: number;
  lora: number;
  /** What the blocks keep + the block phase with its working copy. */
  activations: number;
  /** The output phase: the output matrix's copy and one chunk. */
  outputLayer: number;
  /** The activations still held while the output layer runs. */
  outputKept: number;
  /** weights + lora + the larger of activations and outputKept + outputLayer. */
  peak: number;
}

/** spade_memory.predict, term by term: the round's peak is weights + LoRA + the larger of the blocks' backward phase and the output phase (they never hold their memory at once). */
export function predictTrainingPeak(shape: ModelShape, inputs: TrainingPeakInputs): TrainingPeak {
  const { hyper, dtypeBytes: d, workingCopies: copies } = inputs;
  const lora = trainingMemoryCoefficients.loraParamBytes * loraParameters(shape, hyper.rank, hyper.targets);
  const samplingTransform = inputs.truncating || hyper.logprobs !== "reference";
  let activations = 0;
  let outputLayer = 0;
  let outputKept = 0;
  for (const mb of microBatchShapes(inputs.lengths, inputs.trained, hyper.microBatchTokens)) {
    const tokens = mb.sequences * mb.longest;
    const block = blockPhaseActivations(shape, mb.sequences, mb.longest, d, inputs.fusedAttention);
    const hidden = mb.trained * shape.hidden * d * 2; // the trained positions' final hidden states and their gradient
    const kept = hyper.checkpointing ? tokens * shape.hidden * d * shape.layers + hidden : (shape.layers - 1) * trainingMemoryCoefficients.keptShare * block + hidden;
    activations = Math.max(activations, kept + block + copies.block);
    const chunk = outputChunkBytes(Math.min(hyper.outputChunkTokens, Math.max(mb.widest, 1)), shape.vocab, samplingTransform);
    const phase = Math.max(copies.output + chunk, copies.outputPeak); // the matrix's dequantisation, then its copy beside one chunk
    if (phase + kept > outputLayer + outputKept) {
      outputLayer = phase;
      outputKept = kept;
    }
  }
  const weights = inputs.heldWeightBytes;
  return { weights, lora, activations, outputLayer, outputKept, peak: weights + lora + Math.max(activations, outputKept + outputLayer) };
}

/** The largest micro-batch a round can have (spade_memory.worst_case): `microBatchTokens` of padded tokens, or one sequence of `longest`. */
export function worstCaseLines(longest: number, microBatchTokens: number): { lengths: number[]; trained: number[] } {
  const lines = Math.max(1, Math.floor(Math.max(microBatchTokens, longest) / longest));
  return { lengths: Array<number>(lines).fill(longest), trained: Array<number>(lines).fill(longest - 1) };
}

export interface TrainingMemorySettings {
  /** LoRA rank. Defaults to training.hyper.rank's default (32). */
  rank?: number;
  /** Padded tokens per forward pass (the trainer's micro-batch). Defaults to training.hyper.microBatchTokens's default (4096). */
  microBatchTokens?: number;
  /** Positions whose output-layer logits exist at once. Defaults to training.hyper.outputChunkTokens's default (512). */
  outputChunkTokens?: number;
  /** Activation checkpointing. Defaults to training.hyper.checkpointing's default (true). */
  checkpointing?: boolean;
  /** The gradient's log-prob definition. Defaults to training.hyper.logprobs's default ("reference"). */
  logprobs?: "reference" | "sampling";
  /** The adapted projections. Defaults to all seven. */
  targets?: readonly LoraTarget[];
  /** The longest line a round can hold (the backend's context size): the round predicted is the largest, as the trainer's check before rollout 0. Defaults to 4096 (backend.contextSize's default). */
  contextTokens?: number;
  /** The batch's lines instead of the largest round. Defaults to the largest round of `contextTokens`. */
  lines?: { lengths: number[]; trained: number[] };
  /** Where the trainer runs: "cuda" computes in bf16 with fused attention, "cpu" (and MPS) in float32 without. Defaults to "cuda". */
  device?: "cuda" | "cpu";
  /** How the trainer holds the base weights (training.weights): "quantized" (the file's bytes, one projection dequantised at a time) or "full" (a dequantised copy). Defaults to "quantized". */
  weights?: "quantized" | "full";
  /** The file's bytes (the weights as held quantised). Defaults to the parameters at the quantisation's bits per weight. */
  fileBytes?: number;
  /** Whether the lines are sampled with top-k, top-p or min-p (spade_memory.predict's `truncating`, on in the trainer). Defaults to true. */
  truncating?: boolean;
}

/**
 * The memory model's device for the trainer's device kind as `spade trainer check` reports it
 * ("cuda", "cuda:1", "mps", "cpu"): train_gguf computes in bf16 on CUDA and in float32 elsewhere.
 * Unknown (null) is a GPU: the recommendations are for cards.
 */
export function trainingMemoryDevice(kind: string | null): "cuda" | "cpu" {
  return kind === null || kind.startsWith("cuda") ? "cuda" : "cpu";
}

/** The trainer's predicted peak of a training round, with the inputs it was predicted from. */
export interface TrainingMemoryEstimate extends TrainingPeak {
  /** The peak (the same as `peak`). */
  total: number;
  /** What `predictTrainingPeak` was given: the inputs the trainer derives from the loaded model. */
  inputs: TrainingPeakInputs;
}

/** spade_weights.DEQUANT_CHUNK: values dequantised at once (whole rows); a larger weight is dequantised block by block into its result. */
export const dequantChunk = 2 ** 24;

/** spade_weights.dequantize_peak_bytes: the resident peak of dequantising a weight of `values` values into `workingBytes`, `peak` being its type's dequantPeak. */
export function dequantizePeakBytes(workingBytes: number, values: number, peak: number): number {
  return values <= dequantChunk ? workingBytes * peak : workingBytes + (workingBytes / values) * dequantChunk * peak;
}

/** The largest projection's elements (the block phase's working copy: one weight is dequantised at a time). */
function largestProjection(shape: ModelShape): number {
  return Math.max(...Object.values(projectionDims(shape)).map(([i, o]) => i * o));
}

/**
 * The trainer's inputs for a model of `shape` in `quantisation`, as train_gguf derives them from the
 * loaded model: held bytes (the file's, or the dequantised copy with `weights: "full"`), the working
 * copies (spade_memory.layer_working_bytes: none when the weights are held full; every listed
 * quantisation differs from the bf16 / float32 compute dtype, so a copy otherwise), the device's
 * dtype and attention, and the largest round (spade_memory.worst_case).
 */
export function trainingPeakInputs(shape: ModelShape, quantisation: Quantisation, settings: TrainingMemorySettings = {}): TrainingPeakInputs {
  const d = defaultTrainingHyper;
  const hyper: TrainingMemoryHyper = {
    rank: settings.rank ?? d.rank,
    microBatchTokens: settings.microBatchTokens ?? d.microBatchTokens,
    outputChunkTokens: settings.outputChunkTokens ?? d.outputChunkTokens,
    checkpointing: settings.checkpointing ?? d.checkpointing,
    logprobs: settings.logprobs ?? d.logprobs,
    targets: settings.targets ?? loraTargets,
  };
  const cuda = (settings.device ?? "cuda") === "cuda";
  const dtypeBytes = cuda ? 2 : 4;
  const full = settings.weights === "full";
  const heldWeightBytes = full ? modelParameters(shape) * dtypeBytes : (settings.fileBytes ?? (modelParameters(shape) * bitsPerWeight[quantisation]) / 8);
  const peak = dequantPeak[quantisation][cuda ? "bfloat16" : "float32"];
  const output = shape.vocab * shape.hidden * dtypeBytes;
  const block = largestProjection(shape);
  const workingCopies = full ? { block: 0, output: 0, outputPeak: 0 } : { block: dequantizePeakBytes(block * dtypeBytes, block, peak), output, outputPeak: dequantizePeakBytes(output, shape.vocab * shape.hidden, peak) };
  const lines = settings.lines ?? worstCaseLines(settings.contextTokens ?? 4096, hyper.microBatchTokens);
  // train_gguf: fused attention where the model does not reproduce llama.cpp's f16 KV rounding (kv_f16 is the float32 path) and runs on CUDA
  return { ...lines, hyper, dtypeBytes, heldWeightBytes, workingCopies, fusedAttention: cuda, truncating: settings.truncating ?? true };
}

/** The peak of a training round of a model of `shape` in `quantisation`, as the trainer predicts it (spade_memory.predict). */
export function estimateTrainingMemory(shape: ModelShape, quantisation: Quantisation, settings: TrainingMemorySettings = {}): TrainingMemoryEstimate {
  const inputs = trainingPeakInputs(shape, quantisation, settings);
  const peak = predictTrainingPeak(shape, inputs);
  return { ...peak, total: peak.peak, inputs };
}

/** llama.cpp's memory to play: the file, an f16 KV cache of `contextTokens`, and the runtime's overhead. */
export function estimatePlayMemory(shape: ModelShape, fileBytes: number, contextTokens = 8192): number {
  const kvCache = 2 * shape.layers * shape.kvHeads * shape.headDim * 2 * contextTokens;
  return fileBytes + kvCache + runtimeOverheadBytes;
}
