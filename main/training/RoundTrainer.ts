import type { TrainingHyper } from "../../shared/trainingConfig.js";

/** One `train` command of the trainer line protocol (README "Training inside the run"). */
export interface RoundTrainRequest {
  round: number;
  /** The round's `batch.jsonl`. */
  batch: string;
  /** The base model GGUF. */
  baseModel: string;
  /** The adapter the new one continues from (null: trained on the base model). */
  parentAdapter: string | null;
  /** Where the trainer writes the new GGUF LoRA. */
  output: string;
  hyper: TrainingHyper & { seed: number };
}

/** Recomputed vs recorded behaviour log-probs (the trainer's `mismatch` line). */
export interface LogprobMismatch {
  meanAbsDiff: number;
  maxAbsDiff: number;
  tokens: number;
}

export interface RoundTrainResult {
  /** The GGUF LoRA the trainer wrote. */
  adapterPath: string;
  /** loss, meanRatio, maxRatio, clippedFraction, kl, gradNorm, tokens, seconds. */
  metrics: Record<string, number>;
  mismatch: LogprobMismatch | null;
}

export interface RoundTrainProgress {
  step: number;
  steps: number;
  loss: number | null;
}

/** The memory model's prediction of a run's largest round (bytes). */
export interface RoundMemoryPrediction {
  peakBytes: number;
  freeBytes: number | null;
  parts: { weights: number; lora: number; activations: number; outputLayer: number; outputKept: number };
}

/** A persistent trainer a run's rounds share (the base weights load once); cancelled by the signal. */
export interface RoundTrainer {
  /**
   * Predicts the largest round's peak memory before any rollout (a trainer without a memory model
   * omits it); rejects, naming what to lower, when it does not fit the device's free memory.
   */
  checkMemory?(request: { baseModel: string; hyper: TrainingHyper; longest: number }): Promise<RoundMemoryPrediction>;
  train(request: RoundTrainRequest, options: { signal?: AbortSignal; onProgress?: (progress: RoundTrainProgress) => void }): Promise<RoundTrainResult>;
  dispose(): Promise<void>;
}
