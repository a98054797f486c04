import type { RunConfig } from "../../shared/runConfig.js";
import type { LlmBackend } from "../llm/LlmBackend.js";
import type { LoopEvent } from "../selfplay/LoopEvent.js";
import type { WritableDb } from "../store/DatabaseHandle.js";
import { createRoundTrainer } from "./createRoundTrainer.js";
import { suiteGate } from "./suiteGate.js";
import { TrainingRound, type TrainingRoundOptions } from "./TrainingRound.js";

export interface TrainingRoundParts {
  db: WritableDb;
  runId: number;
  backend: LlmBackend;
  onEvent?: (event: LoopEvent) => void;
  /** Replaces the configured trainer (tests, benchmarks). Defaults to `createRoundTrainer(config.training)`. */
  createTrainer?: TrainingRoundOptions["createTrainer"];
}

/** The run's training step when its config has a `training` block; null otherwise (the run only collects experience). */
export function createTrainingRound(config: RunConfig, parts: TrainingRoundParts): TrainingRound | null {
  const training = config.training;
  if (!training) return null;
  if (config.backend.kind !== "llama") {
    throw new Error(`training: a run trains its own model only on a local GGUF backend (backend.kind "llama"), but this run uses "${config.backend.kind}"; remove the training block and train with \`spade train\``);
  }
  if (training.trainer.kind === "hf") {
    // The hf trainer trains a Hugging Face checkpoint and writes PEFT output: inside a run that needs
    // the checkpoint's path and the GGUF conversion step, which this block does not configure yet.
    throw new Error(`training.trainer: "hf" is not available inside a run yet (it needs a Hugging Face base model and a GGUF conversion step); use "gguf", or train with \`spade train\` and the trainer block`);
  }
  const backendPath = (parts.backend as { modelPath?: unknown }).modelPath;
  const baseModelPath = typeof backendPath === "string" ? backendPath : config.backend.modelPath;
  return new TrainingRound({
    db: parts.db,
    runId: parts.runId,
    seed: config.seed,
    config: training,
    backend: parts.backend,
    baseModelPath,
    initialLora: config.backend.lora ?? [],
    createTrainer: parts.createTrainer ?? (() => createRoundTrainer(training, { onLog: () => undefined, threads: training.threads })),
    // A single GPU rarely holds the model and the trainer: release it there by default.
    gate: training.eval ? suiteGate(parts.db, config, training.eval) : undefined,
    unloadByDefault: config.backend.gpu !== undefined && config.backend.gpu !== false,
    onEvent: parts.onEvent,
  });
}
