import type { RunConfig } from "../../shared/runConfig.js";
import type { TrainingConfig } from "../../shared/trainingConfig.js";
import type { LlmBackend } from "../llm/LlmBackend.js";
import { OpenAiBackend } from "../llm/openai/OpenAiBackend.js";
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

/**
 * Why a run with this config cannot train inside the run, naming what to set, or null when it can.
 * Checked before a run is created (`checkRunConfigFiles`) and again here.
 */
export function trainingRefusal(config: RunConfig): string | null {
  const training = config.training;
  if (!training || config.backend.kind === "llama") return null;
  const server = `this run's backend.kind is "${config.backend.kind}" (a server: each round's adapter is loaded into it through vLLM's or SGLang's dynamic LoRA route)`;
  if (training.trainer.kind === "gguf") {
    return `training.trainer: the recipe's default trainer "gguf" trains the local GGUF a backend of kind "llama" samples from, but ${server}: set training.trainer to {"kind": "hf", "baseModel": <the checkpoint the server serves>} or {"command": [program, script, ...args]}, or "training": null to only collect experience`;
  }
  if (training.trainer.kind === "hf" && !training.trainer.baseModel) {
    return `training.trainer: "hf" needs baseModel (the Hugging Face checkpoint the server serves), because ${server}`;
  }
  return null;
}

/** The run's training step; null for a collect-only run (`"training": null`). */
export function createTrainingRound(config: RunConfig, parts: TrainingRoundParts): TrainingRound | null {
  const training = config.training;
  if (!training) return null;
  const refusal = trainingRefusal(config);
  if (refusal) throw new Error(refusal);
  if (config.backend.kind === "openai") {
    // Training against a server: the trainer trains the checkpoint the server serves and writes an
    // adapter folder, which each round loads into the server (no GGUF conversion).
    const base = training.trainer.kind === "hf" ? training.trainer.baseModel! : config.backend.model;
    // The server loads the PEFT folder itself: no conversion to GGUF.
    const trainerConfig = training.trainer.kind === "hf" ? { ...training, trainer: { ...training.trainer, convertScript: null } } : training;
    return new TrainingRound({
      db: parts.db,
      runId: parts.runId,
      seed: config.seed,
      config: training,
      schedule: config,
      backend: parts.backend,
      baseModelPath: base,
      serving: "server",
      // Before rollout 0: the server can load adapters of the run's rank and returns token ids and log-probs, or the run is refused naming the flag.
      checkTrainer: parts.checkTrainer ?? (parts.backend instanceof OpenAiBackend ? preflightOf(parts.backend, training) : undefined),
      createTrainer: parts.createTrainer ?? (() => createRoundTrainer(trainerConfig, { onLog: () => undefined, threads: training.threads })),
      gate: training.eval ? suiteGate(parts.db, config, training.eval) : undefined,
      onEvent: parts.onEvent,
    });
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
    schedule: config,
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

/** The server preflight of a training run (OpenAiBackend.preflightTraining) for the run's rank and the trainers' default targets. */
function preflightOf(backend: OpenAiBackend, training: TrainingConfig): () => Promise<void> {
  // The projections both trainers adapt by default (spade_grpo.TARGETS), by their Hugging Face names (train_lora.HF_MODULES).
  const targets = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"];
  return async () => void (await backend.preflightTraining({ rank: training.hyper.rank, targets }));
}

/** The built-in trainer's Python, packages, device and (gguf) model file, checked: a TrainerEnvironmentError names each fix. */
async function requireTrainerEnvironment(training: TrainingConfig, baseModelPath: string): Promise<void> {
  const kind = training.trainer.kind === "hf" ? "hf" : "gguf";
  const report = await checkTrainerEnvironment({ python: training.python, trainer: kind, model: kind === "gguf" ? baseModelPath : null });
  if (report.problems.length > 0) throw new TrainerEnvironmentError(report);
}
