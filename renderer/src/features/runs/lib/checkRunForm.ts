// The run config checked with the engine's own parser (shared/runConfig.ts) before it is sent, and
// any config error (from here or from the engine's edge) placed next to the form field it names.
import { parseRunConfig } from "../../../../../shared/runConfig.js";
import { InputError } from "../../../../../shared/validation/InputError.js";
import { buildRunConfig, RunFormError, type RunForm } from "./buildRunConfig.js";

/** A form field, or "configFile": the run config file the form was filled from. */
export type RunFormField = keyof RunForm | "configFile";

export interface RunFormProblem {
  /** The field to show it next to; "extra" for keys only the extra JSON can set. */
  field: RunFormField;
  message: string;
}

const direct: Record<string, RunFormField> = {
  name: "name",
  seed: "seed",
  iterations: "iterations",
  envsPerIteration: "envsPerIteration",
  plays: "plays",
  hintPlays: "hintPlays",
  maxTurns: "maxTurns",
  "backend.modelPath": "modelPath",
  "backend.baseUrl": "baseUrl",
  "backend.model": "model",
  "backend.contextSize": "contextSize",
  "designer.attempts": "designerAttempts",
  "designer.maxTokens": "designerMaxTokens",
  "agent.maxTokens": "agentMaxTokens",
  "hint.maxTokens": "agentMaxTokens",
  "designer.set": "designerSet",
  "designer.kind": "designerKind",
  "reward.kind": "rewardKind",
  "memory.enabled": "memoryEnabled",
  corpus: "corpusPath",
  "corpus.path": "corpusPath",
  training: "trainingMode",
  "training.trainer": "trainingMode",
  "training.trainer.kind": "trainingMode",
  "training.trainer.baseModel": "trainingBaseModel",
  "training.trainer.convertScript": "trainingConvertScript",
};

/** The form field a config error message (`<where>: <key path>: <problem>`) is about. */
export function fieldOfConfigError(message: string): RunFormField {
  const path = /^[^:]+: ([\w.[\]]+): /.exec(message)?.[1];
  if (!path) return "extra";
  if (direct[path]) return direct[path];
  if (path.startsWith("backend.")) return "backendKind";
  return "extra";
}

/**
 * What the Hugging Face trainer still needs inside a run, as the engine would refuse it
 * (main/training/createTrainingRound.ts), or null. Only when the extra JSON leaves the trainer alone.
 */
function trainingProblem(form: RunForm, config: Record<string, unknown>): RunFormProblem | null {
  if (form.trainingMode !== "hf") return null;
  const trainer = (config.training as { trainer?: Record<string, unknown> } | null | undefined)?.trainer;
  if (!trainer || trainer.kind !== "hf") return null;
  if (!trainer.baseModel) {
    const what = form.backendKind === "openai" ? "the Hugging Face checkpoint the server serves" : "the Hugging Face checkpoint the run's GGUF was converted from";
    return { field: "trainingBaseModel", message: `run config: training.trainer.baseModel: the "hf" trainer needs ${what}` };
  }
  if (form.backendKind === "llama" && !trainer.convertScript) {
    return { field: "trainingConvertScript", message: "run config: training.trainer.convertScript: the \"hf\" trainer on a local GGUF needs llama.cpp's `convert_lora_to_gguf.py` to turn each round's adapter into a GGUF LoRA" };
  }
  return null;
}

/** The problem with the form as the engine would see it, or null when the config parses. */
export function checkRunForm(form: RunForm): { config: Record<string, unknown> } | { problem: RunFormProblem } {
  let config: Record<string, unknown>;
  try {
    config = buildRunConfig(form);
  } catch (error) {
    if (error instanceof RunFormError) return { problem: { field: "extra", message: error.message } };
    throw error;
  }
  try {
    // The engine fills in the workspace database; any path stands in for it here.
    parseRunConfig({ ...config, db: "workspace" }, "run config");
  } catch (error) {
    if (error instanceof InputError) return { problem: { field: fieldOfConfigError(error.message), message: error.message } };
    throw error;
  }
  const training = trainingProblem(form, config);
  if (training) return { problem: training };
  return { config };
}
