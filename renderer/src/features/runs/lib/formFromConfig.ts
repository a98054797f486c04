// A stored run config -> the start form's fields ("Clone run"): the form's own fields filled in,
// everything else that differs from the defaults kept in the extra JSON, so the form builds the
// same config back (the engine fills in the workspace `db` again).
import { diffConfigs } from "../../../../../shared/configDiff.js";
import { parseRunConfig } from "../../../../../shared/runConfig.js";
import { defaultRunForm, trainingFromForm, type RunForm } from "./buildRunConfig.js";

type Json = Record<string, unknown>;

const asObject = (value: unknown): Json => (value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : {});
const text = (value: unknown, fallback: string) => (value === undefined || value === null ? fallback : typeof value === "string" ? value : JSON.stringify(value));

/** Dotted keys the form's fields stand for (db is the workspace's, never cloned). */
function coveredKeys(config: Json): Set<string> {
  const keys = ["db", "name", "seed", "iterations", "envsPerIteration", "plays", "hintPlays", "maxTurns", "backend.kind", "corpus", "corpus.path", "reward.kind", "memory.enabled", "designer.kind", "designer.set", "designer.attempts", "designer.maxTokens", "agent.maxTokens"];
  const backend = asObject(config.backend);
  keys.push(...(backend.kind === "openai" ? ["backend.baseUrl", "backend.model"] : ["backend.modelPath", "backend.contextSize"]));
  // One field sets both play budgets: hint.maxTokens is covered only when it equals agent.maxTokens.
  if (asObject(config.hint).maxTokens === asObject(config.agent).maxTokens) keys.push("hint.maxTokens");
  return new Set(keys);
}

type TrainingFields = Pick<RunForm, "trainingMode" | "trainingBaseModel" | "trainingConvertScript">;

/** The form's training control for a stored `training` block: null is off; the "hf" trainer with its two paths; anything else the built-in trainer's setting, its other keys kept in the extra JSON. */
function trainingFields(config: Json): TrainingFields {
  if (config.training === null) return { trainingMode: "off", trainingBaseModel: "", trainingConvertScript: "" };
  const trainer = asObject(config.training).trainer;
  const hf = trainer === "hf" || asObject(trainer).kind === "hf";
  if (!hf) return { trainingMode: "gguf", trainingBaseModel: "", trainingConvertScript: "" };
  return { trainingMode: "hf", trainingBaseModel: text(asObject(trainer).baseModel, ""), trainingConvertScript: text(asObject(trainer).convertScript, "") };
}

/** The config a run with only the form's fields would get: what the extra JSON need not repeat. */
function defaultsFor(config: Json): Json {
  const backend = asObject(config.backend);
  const designer = asObject(config.designer);
  const corpus = asObject(config.corpus);
  const training = trainingFromForm({ backendKind: backend.kind === "openai" ? "openai" : "llama", ...trainingFields(config) });
  try {
    return parseRunConfig(
      {
        // The stored recipe decides the other defaults (configs from before recipes have none).
        ...(config.recipe === undefined ? {} : { recipe: config.recipe }),
        db: "workspace",
        ...Object.fromEntries(["seed", "iterations", "envsPerIteration", "plays", "hintPlays", "maxTurns"].map((key) => [key, config[key]])),
        backend: backend.kind === "openai" ? { kind: "openai", baseUrl: backend.baseUrl, model: backend.model } : { kind: "llama", modelPath: backend.modelPath },
        corpus: config.corpus ? { path: corpus.path } : null,
        ...(designer.kind === "fixed" ? { designer: { kind: "fixed", set: designer.set } } : {}),
        ...(training === undefined ? {} : { training }),
      },
      "defaults",
    ) as unknown as Json;
  } catch {
    return {};
  }
}

function setPath(target: Json, key: string, value: unknown): void {
  const parts = key.split(".");
  let node = target;
  for (const part of parts.slice(0, -1)) node = (node[part] = asObject(node[part])) as Json;
  node[parts[parts.length - 1]!] = value;
}

/** What the workbench adds to every config it starts: not repeated in a clone's extra JSON. */
export interface EngineFilled {
  /** The workbench's models folder (startRun sets backend.modelsDir to it when the config has none). */
  modelsDir?: string;
}

/** The form for a new run with `config`'s settings; `name` replaces the stored name. */
export function formFromConfig(config: Json, name?: string, engine: EngineFilled = {}): RunForm {
  const backend = asObject(config.backend);
  const designer = asObject(config.designer);
  const covered = coveredKeys(config);
  const extra: Json = {};
  for (const { key, values } of diffConfigs([config, defaultsFor(config)])) {
    if (covered.has(key) || values[0] === undefined) continue;
    if (key === "backend.modelsDir" && values[0] === engine.modelsDir) continue;
    setPath(extra, key, values[0]);
  }
  // The play-budget field sets hint.maxTokens too: a different stored value must be kept even when it is the default.
  const hintTokens = asObject(config.hint).maxTokens;
  if (!covered.has("hint.maxTokens") && hintTokens !== undefined) setPath(extra, "hint.maxTokens", hintTokens);
  const openai = backend.kind === "openai";
  return {
    ...defaultRunForm,
    name: name ?? text(config.name, ""),
    seed: text(config.seed, defaultRunForm.seed),
    iterations: text(config.iterations, defaultRunForm.iterations),
    envsPerIteration: text(config.envsPerIteration, defaultRunForm.envsPerIteration),
    plays: text(config.plays, defaultRunForm.plays),
    hintPlays: text(config.hintPlays, defaultRunForm.hintPlays),
    maxTurns: text(config.maxTurns, defaultRunForm.maxTurns),
    backendKind: openai ? "openai" : "llama",
    modelPath: openai ? "" : text(backend.modelPath, ""),
    baseUrl: openai ? text(backend.baseUrl, defaultRunForm.baseUrl) : defaultRunForm.baseUrl,
    model: openai ? text(backend.model, "") : "",
    contextSize: openai ? "" : text(backend.contextSize, ""),
    corpusPath: text(asObject(config.corpus).path, ""),
    designerAttempts: text(designer.attempts, ""),
    designerMaxTokens: text(designer.maxTokens, ""),
    agentMaxTokens: text(asObject(config.agent).maxTokens, ""),
    rewardKind: text(asObject(config.reward).kind, defaultRunForm.rewardKind),
    memoryEnabled: asObject(config.memory).enabled !== false,
    designerKind: designer.kind === "fixed" ? "fixed" : "llm",
    designerSet: text(designer.set, ""),
    ...trainingFields(config),
    extra: Object.keys(extra).length > 0 ? JSON.stringify(extra, null, 2) : "",
  };
}
