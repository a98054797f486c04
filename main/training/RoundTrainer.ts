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

/** A persistent trainer a run's rounds share (the base weights load once); cancelled by the signal. */
export interface RoundTrainer {
  train(request: RoundTrainRequest, options: { signal?: AbortSignal; onProgress?: (progress: RoundTrainProgress) => void }): Promise<RoundTrainResult>;
  dispose(): Promise<void>;
}
