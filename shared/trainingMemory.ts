// How much device memory a model needs to play (llama.cpp) and to train (the built-in gguf
// trainer, QLoRA-style), before anything is downloaded. A documented formula, not a measurement:
// the trainer prints its own memory model before the first round and checks it against the device.

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

export interface TrainingMemorySettings {
  /** LoRA rank. Defaults to 8 (training.hyper.rank). */
  rank?: number;
  /** Tokens that go through the model together (the trainer's micro-batch). Defaults to 4096. */
  microBatchTokens?: number;
  /** Positions per chunk of the output layer's log-probs. Defaults to 1024. */
  outputChunk?: number;
  /** Activation checkpointing (each layer's activations recomputed in the backward pass). Defaults to true. */
  checkpointing?: boolean;
}

/** The coefficients of the formula (README "Training inside the run" names them). */
export const trainingMemoryCoefficients = {
  /** Bytes of a dequantised weight (bf16). */
  dequantisedWeightBytes: 2,
  /** Bytes per LoRA parameter: fp32 weight, gradient, Adam's two moments. */
  loraParamBytes: 16,
  /** Bytes per token per layer of a layer's activations, per unit of (hidden + ffn): calibrated to the 157-174 KB measured at Qwen2.5-1.5B sizes (bf16). */
  activationBytesPerWidth: 16,
  /** Bytes per token per layer kept at a checkpoint, per unit of hidden (the layer's bf16 input). */
  checkpointBytesPerHidden: 2,
  /** Bytes per (position x vocabulary entry) of an output-layer chunk: fp32 logits, their gradient, the softmax. */
  logitBytes: 12,
  /** The runtime's own memory (CUDA context, allocator slack). */
  overheadBytes: 0.75 * 2 ** 30,
} as const;

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

/** LoRA parameters on the seven projections of every layer: rank x (in + out) each. */
export function loraParameters(shape: ModelShape, rank: number): number {
  const qOut = shape.heads * shape.headDim;
  const kvOut = shape.kvHeads * shape.headDim;
  const perLayer = rank * ((shape.hidden + qOut) + 2 * (shape.hidden + kvOut) + (qOut + shape.hidden) + 2 * (shape.hidden + shape.ffn) + (shape.ffn + shape.hidden));
  return shape.layers * perLayer;
}

/** The parts of a training peak, in bytes, and their sum. */
export interface TrainingMemoryEstimate {
  baseWeights: number;
  dequantisedLayer: number;
  lora: number;
  activations: number;
  outputLayer: number;
  overhead: number;
  total: number;
}

/**
 * The peak of a training step: base weights as stored in their quantisation + one layer
 * dequantised + LoRA parameters with their gradients and Adam state + activations (with
 * checkpointing: every layer's input for the micro-batch, plus one layer's activations being
 * recomputed; without: every layer's activations) + the output layer, dequantised, with one chunk
 * of logits + the runtime's overhead. Independent of sequence length beyond the micro-batch.
 */
export function estimateTrainingMemory(shape: ModelShape, quantisation: Quantisation, settings: TrainingMemorySettings = {}): TrainingMemoryEstimate {
  const c = trainingMemoryCoefficients;
  const rank = settings.rank ?? 8;
  const tokens = settings.microBatchTokens ?? 4096;
  const chunk = Math.min(settings.outputChunk ?? 1024, tokens);
  const perLayerActivations = tokens * c.activationBytesPerWidth * (shape.hidden + shape.ffn);
  const baseWeights = (modelParameters(shape) * bitsPerWeight[quantisation]) / 8;
  const dequantisedLayer = layerParameters(shape) * c.dequantisedWeightBytes;
  const lora = loraParameters(shape, rank) * c.loraParamBytes;
  const activations = (settings.checkpointing ?? true) ? shape.layers * tokens * c.checkpointBytesPerHidden * shape.hidden + perLayerActivations : shape.layers * perLayerActivations;
  const outputLayer = shape.vocab * shape.hidden * c.dequantisedWeightBytes + chunk * shape.vocab * c.logitBytes;
  const overhead = c.overheadBytes;
  return { baseWeights, dequantisedLayer, lora, activations, outputLayer, overhead, total: baseWeights + dequantisedLayer + lora + activations + outputLayer + overhead };
}

/** llama.cpp's memory to play: the file, an f16 KV cache of `contextTokens`, and the runtime's overhead. */
export function estimatePlayMemory(shape: ModelShape, fileBytes: number, contextTokens = 8192): number {
  const kvCache = 2 * shape.layers * shape.kvHeads * shape.headDim * 2 * contextTokens;
  return fileBytes + kvCache + trainingMemoryCoefficients.overheadBytes;
}
