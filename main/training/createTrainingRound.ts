import type { RunConfig } from "../../shared/runConfig.js";
import type { TrainingConfig } from "../../shared/trainingConfig.js";
import type { LlmBackend } from "../llm/LlmBackend.js";
import type { LoopEvent } from "../selfplay/LoopEvent.js";
import type { WritableDb } from "../store/DatabaseHandle.js";
import { checkTrainerEnvironment } from "./checkTrainerEnvironment.js";
import { createRoundTrainer } from "./createRoundTrainer.js";
import { suiteGate } from "./suiteGate.js";
import { TrainerEnvironmentError } from "./TrainerEnvironmentError.js";
import { TrainingRound, type TrainingRoundOptions } from "./TrainingRound.js";

export interface TrainingRoundParts {
  db: WritableDb;
  runId: number;
  backend: LlmBackend;
  onEvent?: (event: LoopEvent) => void;
  /** Replaces the configured trainer (tests, benchmarks). Defaults to `createRoundTrainer(config.training)`. */
  createTrainer?: TrainingRoundOptions["createTrainer"];
  /** Replaces the check of the trainer's Python before rollout 0. Defaults to `checkTrainerEnvironment` for the built-in trainers when `createTrainer` is not replaced, else none. */
  checkTrainer?: TrainingRoundOptions["checkTrainer"];
}

/** The run's training step when its config has a `training` block; null otherwise (the run only collects experience). */
export function createTrainingRound(config: RunConfig, parts: TrainingRoundParts): TrainingRound | null {
  const training = config.training;
  if (!training) return null;
  if (config.backend.kind !== "llama") {
    throw new Error(`training: a run trains its own model only on a local GGUF backend (backend.kind "llama"), but this run uses "${config.backend.kind}"; remove the training block and train with \`spade train\``);
  }
  if (training.trainer.kind === "hf" && (!training.trainer.baseModel || !training.trainer.convertScript)) {
    // The hf trainer trains a Hugging Face checkpoint and writes PEFT adapters: inside a run it needs
    // that checkpoint and the conversion to a GGUF LoRA the run's llama.cpp loads.
    const missing = !training.trainer.baseModel ? "baseModel (the Hugging Face checkpoint the run's GGUF was converted from)" : "convertScript (llama.cpp's convert_lora_to_gguf.py)";
    throw new Error(`training.trainer: "hf" inside a run needs {"kind": "hf", "baseModel": ..., "convertScript": ...}; ${missing} is missing`);
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
    ...(training.trainer.kind === "hf" ? { trainerBaseModel: training.trainer.baseModel! } : {}),
    initialLora: config.backend.lora ?? [],
    checkTrainer: parts.checkTrainer ?? (parts.createTrainer || training.trainer.kind === "command" ? undefined : () => requireTrainerEnvironment(training, baseModelPath)),
    createTrainer: parts.createTrainer ?? (() => createRoundTrainer(training, { onLog: () => undefined, threads: training.threads, baseModel: training.trainer.kind === "hf" ? training.trainer.baseModel! : baseModelPath })),
    gate: training.eval ? suiteGate(parts.db, config, training.eval) : undefined,
    onEvent: parts.onEvent,
  });
}

/** The built-in trainer's Python, packages, device and (gguf) model file, checked: a TrainerEnvironmentError names each fix. */
async function requireTrainerEnvironment(training: TrainingConfig, baseModelPath: string): Promise<void> {
  const kind = training.trainer.kind === "hf" ? "hf" : "gguf";
  const report = await checkTrainerEnvironment({ python: training.python, trainer: kind, model: kind === "gguf" ? baseModelPath : null });
  if (report.problems.length > 0) throw new TrainerEnvironmentError(report);
}
