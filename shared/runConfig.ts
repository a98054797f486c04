import { parseBackendConfig, type BackendConfig } from "./backendConfig.js";
import type { ThinkingMode } from "./llm.js";
import { parseTrainingConfig, type TrainingConfig } from "./trainingConfig.js";
import { InputError } from "./validation/InputError.js";
import { optional, readBoolean, readInteger, readNumber, readObject, readString, readStringArray } from "./validation/fields.js";

/** The designer reward variants (SPADE-NOTES "Designer reward"). */
export const rewardKinds = ["blend", "regret", "solveRate", "learningPotential", "variance", "azr", "rzero"] as const;
export type RewardKind = (typeof rewardKinds)[number];

export interface RewardConfig {
  /** Defaults to "blend": 0.4 * clip(regret / 0.15, 0, 1) + 0.6 * plateau(winRate). */
  kind: RewardKind;
  /** Regret that earns the full regret term. Defaults to 0.15. */
  regretScale: number;
  /** Weight of the regret term in the blend. Defaults to 0.4 (the plateau gets the rest). */
  regretWeight: number;
  /** Win-rate plateau where the solve-rate term is 1. Defaults to [0.4, 0.6]. */
  plateau: [number, number];
  /** Width of the linear ramp on either side of the plateau. Defaults to 0.25. */
  ramp: number;
  /** Designer reward when a play hit the step deadline. Defaults to -0.5. */
  timeoutPenalty: number;
  /** Designer reward of an attempt that never became valid. Defaults to 0. */
  invalidReward: number;
}

export interface DesignerConfig {
  /** "llm": the model writes environments; "fixed": draw from an environment set (the paper's baseline). Defaults to "llm". */
  kind: "llm" | "fixed";
  /** The environment set a fixed designer draws from. Required with kind "fixed". */
  set: string | null;
  /** Designer calls per environment, repairs included. Defaults to 3. */
  attempts: number;
  /** Defaults to 1.0. */
  temperature: number;
  /** Defaults to 4096. */
  maxTokens: number;
  /** Skills drawn per environment. Defaults to SPADE's cognitive skills. */
  skills: string[];
  /** Difficulties drawn per environment. Defaults to ["easy", "medium", "hard"]. */
  difficulties: string[];
  /** Whether a thinking model reasons first: "off" (the launchers' enable_thinking: false), "on", or "auto" (the model's default). Defaults to "off". */
  thinking: ThinkingMode;
  /** The reference's f-string brace repair of the designer's code, run in the sandbox before validation. Defaults to true. */
  repairBraces: boolean;
}

export interface MemoryConfig {
  /** false: no memory references in the designer prompt (ablation "no memory"). Defaults to true. */
  enabled: boolean;
  /** Defaults to 200. */
  capacity: number;
  /** Reference environments shown per designer call. Defaults to 2. */
  references: number;
  /** Novelty check before an environment enters memory. Defaults to true. */
  novelty: boolean;
  /** Code similarity (0..1) at or above which an environment is a near-duplicate. Defaults to 0.85. */
  codeSimilarity: number;
  /** First-observation similarity at or above which (together with code >= 0.6) it is a near-duplicate. Defaults to 0.9. */
  observationSimilarity: number;
}

export interface CorpusConfig {
  path: string;
  /** Defaults to 6000 words. */
  maxWords: number;
}

export interface AgentConfig {
  /** Defaults to 0.6. */
  temperature: number;
  /** Defaults to 512. */
  maxTokens: number;
  /** Keep only the last N exchanges in the agent's prompt. Defaults to all. */
  historyTurns: number | null;
  /** Whether a thinking model reasons first: "off" (the launchers' enable_thinking: false), "on", or "auto" (the model's default). Defaults to "off". */
  thinking: ThinkingMode;
}

export interface SandboxConfig {
  /** Defaults to 30000 ms (SPADE's per-step limit). */
  stepTimeoutMs: number;
  /** Defaults to 60000 ms. */
  validationTimeoutMs: number;
  /** Run generated code even where no OS confinement (bubblewrap, sandbox-exec) is available: reduced isolation. Defaults to false (the SPADE_SANDBOX_ALLOW_UNCONFINED=1 environment variable also allows it). */
  allowUnconfined: boolean;
}

export interface RunConfig {
  /** The workspace database. Relative to the config file. */
  db: string;
  name: string | null;
  seed: number;
  iterations: number;
  envsPerIteration: number;
  plays: number;
  hintPlays: number;
  maxTurns: number;
  /** The model: a local GGUF through node-llama-cpp, or an OpenAI-compatible server. */
  backend: BackendConfig;
  /** null: no grounding document (ablation "no corpus"). */
  corpus: CorpusConfig | null;
  /** One canary play before the batch. Defaults to true. */
  canary: boolean;
  designer: DesignerConfig;
  reward: RewardConfig;
  memory: MemoryConfig;
  agent: AgentConfig;
  hint: { temperature: number; maxTokens: number; thinking: ThinkingMode };
  sandbox: SandboxConfig;
  /** How `spade train` turns this run's plays into an adapter. Absent: no trainer configured. */
  trainer?: TrainerConfig;
  /** Training inside the run (shared/trainingConfig.ts). Absent: the run only collects experience. */
  training?: TrainingConfig;
}

/** A command run as a child process: an argv array (no shell) or one string (run by the shell). */
export type CommandTemplate = string[] | string;

/** The held-out check after training, and the promotion gate. */
export interface TrainerEvalConfig {
  /** A JSONL question suite or a folder of `.py` environments. Relative to the config file. */
  suite: string;
  /** Questions (or environments) used from the suite. Defaults to all of them. */
  limit: number | null;
  /** The adapter is promoted unless its score is below its parent's by more than this. Defaults to 0. */
  margin: number;
  /** Generation budget per question. Defaults to 1024. */
  maxTokens: number;
}

export interface TrainerConfig {
  /**
   * The trainer. Placeholders: {dataset}, {baseModel}, {previousAdapter}, {previousAdapterDir},
   * {outputDir}; in a string command they are shell-quoted.
   */
  command: CommandTemplate;
  /** Turns a PEFT adapter into a GGUF LoRA when the trainer wrote none: {peftDir}, {outputFile}, {baseModel}. Defaults to none. */
  convert: CommandTemplate | null;
  /** Extra environment variables for the trainer. Defaults to none. */
  env: Record<string, string>;
  /** The trainer's working folder. Relative to the config file. Defaults to the config file's folder. */
  cwd: string | null;
  /** What {baseModel} stands for (an HF model id or folder for PEFT trainers). Defaults to backend.modelPath. */
  baseModel: string | null;
  /** Export formats written into {dataset}. Defaults to ["trl-sft", "grpo"]. */
  formats: TrainerFormat[];
  /** Train on hinted plays too (the hint is privileged information). Defaults to false. */
  includeHinted: boolean;
  /** The trainer is stopped after this long. Defaults to no limit. */
  timeoutMs: number | null;
  /** Evaluate the new adapter and gate its promotion. Defaults to none. */
  eval: TrainerEvalConfig | null;
}

export const defaultSkills = [
  "Mathematical Reasoning",
  "Logical Deduction",
  "Planning",
  "Spatial Reasoning",
  "Algorithmic Thinking",
  "Causal Reasoning",
];

/** A run's name is a label: at most this many characters. */
export const maxRunNameLength = 200;

const topKeys = ["db", "name", "seed", "iterations", "envsPerIteration", "plays", "hintPlays", "maxTurns", "backend", "corpus", "canary", "designer", "reward", "memory", "agent", "hint", "sandbox", "trainer", "training"];

/**
 * Reads a run config (the JSON of `spade run --config`). Unknown keys and wrong types are refused
 * with a message naming the key; `where` names the file. Paths stay as written: the caller resolves
 * them against the config file's folder. A parsed config reads back as itself (runs store theirs).
 */
export function parseRunConfig(value: unknown, where: string): RunConfig {
  const c = readObject(where, "", value, topKeys);
  for (const key of ["db", "seed", "iterations", "envsPerIteration", "plays", "hintPlays", "maxTurns", "backend", "corpus"]) {
    if (!(key in c)) throw new InputError(`${where}: ${key}: required key is missing`);
  }
  const int = (key: string, min: number) => readInteger(where, key, c[key], min);
  return {
    db: readString(where, "db", c.db, { nonEmpty: true }),
    name: optional(c.name ?? undefined, (v) => readString(where, "name", v, { maxLength: maxRunNameLength })) ?? null,
    seed: int("seed", 0),
    iterations: int("iterations", 1),
    envsPerIteration: int("envsPerIteration", 1),
    plays: int("plays", 1),
    hintPlays: int("hintPlays", 0),
    maxTurns: int("maxTurns", 1),
    backend: parseBackendConfig(c.backend, where),
    corpus: c.corpus === null ? null : readCorpus(where, c.corpus),
    canary: optional(c.canary, (v) => readBoolean(where, "canary", v)) ?? true,
    designer: readDesigner(where, c.designer),
    reward: readReward(where, c.reward),
    memory: readMemory(where, c.memory),
    agent: readAgent(where, c.agent),
    hint: readHint(where, c.hint),
    sandbox: readSandbox(where, c.sandbox),
    ...(c.trainer === undefined ? {} : { trainer: readTrainer(where, c.trainer) }),
    ...(c.training === undefined ? {} : { training: parseTrainingConfig(where, c.training) }),
  };
}

function readCorpus(where: string, value: unknown): CorpusConfig {
  const o = readObject(where, "corpus", value, ["path", "maxWords"]);
  return {
    path: readString(where, "corpus.path", o.path, { nonEmpty: true }),
    maxWords: optional(o.maxWords, (v) => readInteger(where, "corpus.maxWords", v, 1)) ?? 6000,
  };
}

function readDesigner(where: string, value: unknown): DesignerConfig {
  const o = readObject(where, "designer", value ?? {}, ["kind", "set", "attempts", "temperature", "maxTokens", "skills", "difficulties", "thinking", "repairBraces"]);
  const kind = (optional(o.kind, (v) => readString(where, "designer.kind", v, { oneOf: ["llm", "fixed"] })) ?? "llm") as DesignerConfig["kind"];
  const set = optional(o.set ?? undefined, (v) => readString(where, "designer.set", v, { nonEmpty: true })) ?? null;
  if (kind === "fixed" && set === null) throw new InputError(`${where}: designer.set: required when designer.kind is "fixed" (the environment set to draw from)`);
  return {
    kind,
    set,
    attempts: optional(o.attempts, (v) => readInteger(where, "designer.attempts", v, 1, 20)) ?? 3,
    temperature: optional(o.temperature, (v) => readNumber(where, "designer.temperature", v, 0, 5)) ?? 1.0,
    maxTokens: optional(o.maxTokens, (v) => readInteger(where, "designer.maxTokens", v, 1)) ?? 4096,
    skills: optional(o.skills, (v) => readStringArray(where, "designer.skills", v)) ?? defaultSkills,
    difficulties: optional(o.difficulties, (v) => readStringArray(where, "designer.difficulties", v)) ?? ["easy", "medium", "hard"],
    thinking: readThinking(where, "designer.thinking", o.thinking),
    repairBraces: optional(o.repairBraces, (v) => readBoolean(where, "designer.repairBraces", v)) ?? true,
  };
}

function readReward(where: string, value: unknown): RewardConfig {
  const o = readObject(where, "reward", value ?? {}, ["kind", "regretScale", "regretWeight", "plateau", "ramp", "timeoutPenalty", "invalidReward"]);
  let plateau: [number, number] = [0.4, 0.6];
  if (o.plateau !== undefined) {
    if (!Array.isArray(o.plateau) || o.plateau.length !== 2) throw new InputError(`${where}: reward.plateau: expected [low, high], got ${JSON.stringify(o.plateau)}`);
    const low = readNumber(where, "reward.plateau[0]", o.plateau[0], 0, 1);
    const high = readNumber(where, "reward.plateau[1]", o.plateau[1], low, 1);
    plateau = [low, high];
  }
  return {
    kind: (optional(o.kind, (v) => readString(where, "reward.kind", v, { oneOf: rewardKinds })) ?? "blend") as RewardKind,
    regretScale: optional(o.regretScale, (v) => readNumber(where, "reward.regretScale", v, 1e-9)) ?? 0.15,
    regretWeight: optional(o.regretWeight, (v) => readNumber(where, "reward.regretWeight", v, 0, 1)) ?? 0.4,
    plateau,
    ramp: optional(o.ramp, (v) => readNumber(where, "reward.ramp", v, 0, 1)) ?? 0.25,
    timeoutPenalty: optional(o.timeoutPenalty, (v) => readNumber(where, "reward.timeoutPenalty", v, -10, 10)) ?? -0.5,
    invalidReward: optional(o.invalidReward, (v) => readNumber(where, "reward.invalidReward", v, -10, 10)) ?? 0,
  };
}

function readMemory(where: string, value: unknown): MemoryConfig {
  const o = readObject(where, "memory", value ?? {}, ["enabled", "capacity", "references", "novelty", "codeSimilarity", "observationSimilarity"]);
  return {
    enabled: optional(o.enabled, (v) => readBoolean(where, "memory.enabled", v)) ?? true,
    capacity: optional(o.capacity, (v) => readInteger(where, "memory.capacity", v, 1)) ?? 200,
    references: optional(o.references, (v) => readInteger(where, "memory.references", v, 0, 10)) ?? 2,
    novelty: optional(o.novelty, (v) => readBoolean(where, "memory.novelty", v)) ?? true,
    codeSimilarity: optional(o.codeSimilarity, (v) => readNumber(where, "memory.codeSimilarity", v, 0, 1)) ?? 0.85,
    observationSimilarity: optional(o.observationSimilarity, (v) => readNumber(where, "memory.observationSimilarity", v, 0, 1)) ?? 0.9,
  };
}

function readAgent(where: string, value: unknown): AgentConfig {
  const o = readObject(where, "agent", value ?? {}, ["temperature", "maxTokens", "historyTurns", "thinking"]);
  return {
    temperature: optional(o.temperature, (v) => readNumber(where, "agent.temperature", v, 0, 5)) ?? 0.6,
    maxTokens: optional(o.maxTokens, (v) => readInteger(where, "agent.maxTokens", v, 1)) ?? 512,
    historyTurns: optional(o.historyTurns ?? undefined, (v) => readInteger(where, "agent.historyTurns", v, 1)) ?? null,
    thinking: readThinking(where, "agent.thinking", o.thinking),
  };
}

function readHint(where: string, value: unknown): RunConfig["hint"] {
  const o = readObject(where, "hint", value ?? {}, ["temperature", "maxTokens", "thinking"]);
  return {
    temperature: optional(o.temperature, (v) => readNumber(where, "hint.temperature", v, 0, 5)) ?? 0.3,
    maxTokens: optional(o.maxTokens, (v) => readInteger(where, "hint.maxTokens", v, 1)) ?? 256,
    thinking: readThinking(where, "hint.thinking", o.thinking),
  };
}

function readThinking(where: string, key: string, value: unknown): ThinkingMode {
  return (optional(value, (v) => readString(where, key, v, { oneOf: ["off", "on", "auto"] })) ?? "off") as ThinkingMode;
}

function readSandbox(where: string, value: unknown): SandboxConfig {
  const o = readObject(where, "sandbox", value ?? {}, ["stepTimeoutMs", "validationTimeoutMs", "allowUnconfined"]);
  return {
    stepTimeoutMs: optional(o.stepTimeoutMs, (v) => readInteger(where, "sandbox.stepTimeoutMs", v, 1)) ?? 30_000,
    validationTimeoutMs: optional(o.validationTimeoutMs, (v) => readInteger(where, "sandbox.validationTimeoutMs", v, 1)) ?? 60_000,
    allowUnconfined: optional(o.allowUnconfined, (v) => readBoolean(where, "sandbox.allowUnconfined", v)) ?? false,
  };
}

/** The export formats a trainer can ask for (see `spade export --format`). */
export const trainerFormats = ["grpo", "designer", "trl-sft", "trl-kto", "art"] as const;
export type TrainerFormat = (typeof trainerFormats)[number];

/** Reads the `trainer` block of a run config (used by `spade train`). */
export function readTrainer(where: string, value: unknown): TrainerConfig {
  const o = readObject(where, "trainer", value, ["command", "convert", "env", "cwd", "baseModel", "formats", "includeHinted", "timeoutMs", "eval"]);
  if (o.command === undefined) throw new InputError(`${where}: trainer.command: required key is missing (an argv array or a shell command string)`);
  const env: Record<string, string> = {};
  if (o.env !== undefined) {
    const entries = readObject(where, "trainer.env", o.env, Object.keys(o.env as object));
    for (const [name, text] of Object.entries(entries)) env[name] = readString(where, `trainer.env.${name}`, text);
  }
  const formats = optional(o.formats, (v) => readStringArray(where, "trainer.formats", v)) ?? ["trl-sft", "grpo"];
  formats.forEach((format, i) => readString(where, `trainer.formats[${i}]`, format, { oneOf: trainerFormats }));
  if (new Set(formats).size !== formats.length) throw new InputError(`${where}: trainer.formats: each format may appear once, got ${JSON.stringify(formats)}`);
  return {
    command: readCommandTemplate(where, "trainer.command", o.command),
    convert: optional(o.convert ?? undefined, (v) => readCommandTemplate(where, "trainer.convert", v)) ?? null,
    env,
    cwd: optional(o.cwd ?? undefined, (v) => readString(where, "trainer.cwd", v, { nonEmpty: true })) ?? null,
    baseModel: optional(o.baseModel ?? undefined, (v) => readString(where, "trainer.baseModel", v, { nonEmpty: true })) ?? null,
    formats: formats as TrainerFormat[],
    includeHinted: optional(o.includeHinted, (v) => readBoolean(where, "trainer.includeHinted", v)) ?? false,
    timeoutMs: optional(o.timeoutMs ?? undefined, (v) => readInteger(where, "trainer.timeoutMs", v, 1)) ?? null,
    eval: optional(o.eval ?? undefined, (v) => readTrainerEval(where, v)) ?? null,
  };
}

function readCommandTemplate(where: string, path: string, value: unknown): CommandTemplate {
  if (typeof value === "string") return readString(where, path, value, { nonEmpty: true });
  return readStringArray(where, path, value);
}

function readTrainerEval(where: string, value: unknown): TrainerEvalConfig {
  const o = readObject(where, "trainer.eval", value, ["suite", "limit", "margin", "maxTokens"]);
  return {
    suite: readString(where, "trainer.eval.suite", o.suite, { nonEmpty: true }),
    limit: optional(o.limit ?? undefined, (v) => readInteger(where, "trainer.eval.limit", v, 1)) ?? null,
    margin: optional(o.margin, (v) => readNumber(where, "trainer.eval.margin", v, 0)) ?? 0,
    maxTokens: optional(o.maxTokens, (v) => readInteger(where, "trainer.eval.maxTokens", v, 1)) ?? 1024,
  };
}
