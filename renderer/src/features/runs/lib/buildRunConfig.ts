// The start-run form's fields -> the loop's run config (the engine adds the workspace `db`).
// Numbers typed wrong stay as text, so parseRunConfig names the field and the value.
import type { TrainingMode } from "./trainingChoices.js";

export interface RunForm {
  name: string;
  seed: string;
  iterations: string;
  envsPerIteration: string;
  plays: string;
  hintPlays: string;
  maxTurns: string;
  backendKind: "llama" | "openai";
  /** A local GGUF path (from the models list or typed) or a model URI. */
  modelPath: string;
  baseUrl: string;
  model: string;
  /** backend.contextSize; empty: the engine's choice. */
  contextSize: string;
  corpusPath: string;
  /** designer.attempts: designer calls per environment, repairs included. */
  designerAttempts: string;
  /** designer.maxTokens: the token budget of one designer reply. */
  designerMaxTokens: string;
  /** agent.maxTokens and hint.maxTokens: the token budget of one play turn and of a hint. */
  agentMaxTokens: string;
  rewardKind: string;
  memoryEnabled: boolean;
  designerKind: "llm" | "fixed";
  designerSet: string;
  /** Training inside the run: the built-in trainer (the recipe's default, left to the engine), the Hugging Face trainer, or off (`"training": null`). */
  trainingMode: TrainingMode;
  /** training.trainer.baseModel of the Hugging Face trainer: the checkpoint the GGUF was converted from, or the one the server serves. */
  trainingBaseModel: string;
  /** training.trainer.convertScript of the Hugging Face trainer on a local GGUF: llama.cpp's convert_lora_to_gguf.py. */
  trainingConvertScript: string;
  /** More config as a JSON object, merged over the fields above (e.g. `{"agent": {"temperature": 0.8}}`). */
  extra: string;
}

/**
 * A small first run, set explicitly (not the recipe's reference budgets): one iteration of two
 * environments, two plays each and short replies (512 designer tokens, 128 per play turn), so a
 * first local run on a CPU plays in a minute or two and says whether the model can write
 * environments at all. Scale up from there (a real designer needs 2048-4096 tokens). Training stays
 * the recipe's (a LoRA round after the iteration, with the built-in trainer), and the form says so.
 */
export const defaultRunForm: RunForm = {
  name: "",
  seed: "1",
  iterations: "1",
  envsPerIteration: "2",
  plays: "2",
  hintPlays: "2",
  maxTurns: "6",
  backendKind: "llama",
  modelPath: "",
  baseUrl: "http://127.0.0.1:8080/v1",
  model: "",
  contextSize: "",
  corpusPath: "",
  designerAttempts: "2",
  designerMaxTokens: "512",
  agentMaxTokens: "128",
  rewardKind: "blend",
  memoryEnabled: true,
  designerKind: "llm",
  designerSet: "",
  trainingMode: "gguf",
  trainingBaseModel: "",
  trainingConvertScript: "",
  extra: "",
};

/** The form's extra JSON is not a JSON object. */
export class RunFormError extends Error {
  override readonly name = "RunFormError";
}

function numberOrText(text: string): number | string {
  const trimmed = text.trim();
  return trimmed !== "" && Number.isFinite(Number(trimmed)) ? Number(trimmed) : trimmed;
}

function parseExtra(text: string): Record<string, unknown> {
  if (!text.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RunFormError(`extra config is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new RunFormError("extra config must be a JSON object, e.g. {\"agent\": {\"temperature\": 0.8}}");
  return value as Record<string, unknown>;
}

/** The `training` key the form's training control stands for; undefined leaves the recipe's default (the built-in trainer). */
export function trainingFromForm(form: Pick<RunForm, "backendKind" | "trainingMode" | "trainingBaseModel" | "trainingConvertScript">): Record<string, unknown> | null | undefined {
  if (form.trainingMode === "off") return null;
  if (form.trainingMode === "gguf") return undefined;
  const trainer: Record<string, unknown> = { kind: "hf", baseModel: form.trainingBaseModel.trim() || null };
  // A server loads the PEFT folder itself: no conversion to GGUF.
  if (form.backendKind === "llama") trainer.convertScript = form.trainingConvertScript.trim() || null;
  return { trainer };
}

export function buildRunConfig(form: RunForm): Record<string, unknown> {
  const backend: Record<string, unknown> = form.backendKind === "llama" ? { kind: "llama", modelPath: form.modelPath.trim() } : { kind: "openai", baseUrl: form.baseUrl.trim(), model: form.model.trim() };
  if (form.backendKind === "llama" && form.contextSize.trim()) backend.contextSize = numberOrText(form.contextSize);
  const playTokens = form.agentMaxTokens.trim() ? { maxTokens: numberOrText(form.agentMaxTokens) } : {};
  const config: Record<string, unknown> = {
    ...(form.name.trim() ? { name: form.name.trim() } : {}),
    seed: numberOrText(form.seed),
    iterations: numberOrText(form.iterations),
    envsPerIteration: numberOrText(form.envsPerIteration),
    plays: numberOrText(form.plays),
    hintPlays: numberOrText(form.hintPlays),
    maxTurns: numberOrText(form.maxTurns),
    backend,
    corpus: form.corpusPath.trim() ? { path: form.corpusPath.trim() } : null,
    designer: {
      ...(form.designerKind === "fixed" ? { kind: "fixed", set: form.designerSet.trim() } : { kind: "llm" }),
      ...(form.designerAttempts.trim() ? { attempts: numberOrText(form.designerAttempts) } : {}),
      ...(form.designerMaxTokens.trim() ? { maxTokens: numberOrText(form.designerMaxTokens) } : {}),
    },
    agent: { ...playTokens },
    hint: { ...playTokens },
    reward: { kind: form.rewardKind },
    memory: { enabled: form.memoryEnabled },
  };
  const training = trainingFromForm(form);
  if (training !== undefined) config.training = training;
  const extra = parseExtra(form.extra);
  for (const [key, value] of Object.entries(extra)) {
    const current = config[key];
    const bothObjects = [current, value].every((v) => typeof v === "object" && v !== null && !Array.isArray(v));
    config[key] = bothObjects ? { ...(current as object), ...(value as object) } : value;
  }
  return config;
}
