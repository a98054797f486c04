import { parseBackendConfig, type BackendConfig } from "./backendConfig.js";
import type { ThinkingMode } from "./llm.js";
import { parseTrainingConfig, type TrainingConfig } from "./trainingConfig.js";
import { InputError } from "./validation/InputError.js";
import { optional, readBoolean, readInteger, readNumber, readObject, readString, readStringArray } from "./validation/fields.js";
import { recipeDefaults, recipeNames, type RecipeDefaults, type RecipeName } from "./runRecipes.js";
import { recipeGameSkills } from "./skills.js";

export { recipeNames, type RecipeName } from "./runRecipes.js";

/**
 * The designer reward variants. `blend`, `regret`, `solveRate` and `learningPotential` are the
 * reference's; `variance` is the reference's learning potential with its variance add-on;
 * `azr` and `rzero` are this project's additions (from those peers' papers).
 */
export const rewardKinds = ["blend", "regret", "solveRate", "learningPotential", "variance", "azr", "rzero"] as const;
export type RewardKind = (typeof rewardKinds)[number];

export interface RewardConfig {
  /** Defaults to "blend": 0.4 * clip(regret / 0.15, 0, 1) + 0.6 * plateau(mean return), negatives masked. */
  kind: RewardKind;
  /** Regret that earns the full regret term. Defaults to 0.15. */
  regretScale: number;
  /** Weight of the regret term in the blend. Defaults to 0.4. */
  regretWeight: number;
  /** Weight of the plateau term in the blend. Defaults to 1 - regretWeight (0.6). */
  plateauWeight: number;
  /** Plateau where the solve-rate term is 1. Defaults to [0.4, 0.6]. */
  plateau: [number, number];
  /** Width of the linear ramp on either side of the plateau. Defaults to 0.25. */
  ramp: number;
  /** Designer reward of a game whose play hit the step deadline (the reference's `regret_based` variant). Defaults to -0.5. */
  timeoutPenalty: number;
  /** Deviation: the timeout penalty also replaces the blend (the reference's blend has no timeout term). Defaults to false. */
  timeoutInBlend: boolean;
  /** Designer reward of an attempt that never became valid. Defaults to 0. */
  invalidReward: number;
  /** Rollouts after a regeneration at which its designer reward is computed (the reference's proposer delay). Defaults to the recipe's (4 games, 8 tool use). */
  proposerDelay: number;
  /** Skill-centred designer rewards are multiplied by this for the designer's advantage. Defaults to the recipe's (32 games, 50 tool use). */
  scale: number;
  /** Fast EMA constant of the learning-potential tracker. Defaults to 0.98. */
  lpFastGamma: number;
  /** Slow EMA constant (the baseline). Defaults to 0.85. */
  lpSlowGamma: number;
  /** Blend weight of the micro learning potential (slope of the per-rollout mean return over the window). Defaults to 0. */
  microLpWeight: number;
  /** Defaults to 0.1. */
  microLpScale: number;
  /** Blend weight of the frontier penalty (mean return - 0.5)^2. Defaults to 0. */
  frontierWeight: number;
  /** Defaults to 0.08. */
  frontierScale: number;
}

export interface DesignerConfig {
  /** "llm": the model writes environments; "fixed": draw from an environment set (the paper's baseline). Defaults to "llm". */
  kind: "llm" | "fixed";
  /** The environment set a fixed designer draws from. Required with kind "fixed". */
  set: string | null;
  /** Designer calls per slot, each an independent sample (or a repair turn with `repair`). Defaults to 5. */
  attempts: number;
  /** Deviation: a failed attempt is followed by a repair turn with the validator's error instead of an independent re-sample. Defaults to false. */
  repair: boolean;
  /** Defaults to the recipe's (0.6). */
  temperature: number;
  /** Defaults to the recipe's (16384). */
  maxTokens: number;
  /** The configured skills, rotated `skillsPerRegen` at a time. Defaults to the recipe's six. */
  skills: string[];
  /** The difficulty every game is asked for. Defaults to "medium". */
  difficulty: string;
  /** Deviation: draw each slot's difficulty from `difficulties` at random. Defaults to false (true when only `difficulties` is given). */
  randomDifficulty: boolean;
  /** Difficulties drawn with `randomDifficulty`. Defaults to ["easy", "medium", "hard"]. */
  difficulties: string[];
  /** Tool-use environments (`ToolUseBaseEnv`, tool calls). Defaults to the recipe's (false games, true tool use). */
  toolUse: boolean;
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
  /** Deviation: a novelty check keeps near-duplicates out of memory (the reference has none). Defaults to false. */
  novelty: boolean;
  /** Code similarity (0..1) at or above which an environment is a near-duplicate. Defaults to 0.85. */
  codeSimilarity: number;
  /** First-observation similarity at or above which (together with code >= 0.6) it is a near-duplicate. Defaults to 0.9. */
  observationSimilarity: number;
}

export interface CorpusConfig {
  path: string;
  /** Defaults to the recipe's (6000 words games, 4000 tool use). */
  maxWords: number;
}

export interface AgentConfig {
  /** Defaults to 0.6. */
  temperature: number;
  /** Defaults to 0.95. */
  topP: number;
  /** Defaults to 20. */
  topK: number;
  /** Defaults to 8192. */
  maxTokens: number;
  /** Keep only the last N exchanges in the agent's prompt. Defaults to all. */
  historyTurns: number | null;
  /** Whether a thinking model reasons first: "off" (the launchers' enable_thinking: false), "on", or "auto" (the model's default). Defaults to "off". */
  thinking: ThinkingMode;
}

export interface HintConfig {
  /** Defaults to 0.3. */
  temperature: number;
  /** Defaults to the recipe's (4096 games, 2048 tool use). */
  maxTokens: number;
  /** Deviation: a written hint that spells out the solution is asked for again, then redacted. Defaults to false. */
  leakCheck: boolean;
  /** Deviation: an environment's own `hint()` is used instead of the hint writer (it passes the leak check). Defaults to false. */
  useEnvHint: boolean;
  /** Whether a thinking model reasons first: "off" (the launchers' enable_thinking: false), "on", or "auto" (the model's default). Defaults to "off". */
  thinking: ThinkingMode;
}

export interface SandboxConfig {
  /** Defaults to 30000 ms (SPADE's per-step limit). */
  stepTimeoutMs: number;
  /** Defaults to 60000 ms. */
  validationTimeoutMs: number;
  /** Sandbox processes kept for the run; null sizes the pool from the backend's concurrency and free memory. Defaults to null. */
  processes: number | null;
  /** Run generated code even where no OS confinement (bubblewrap, sandbox-exec) is available: reduced isolation. Defaults to false (the SPADE_SANDBOX_ALLOW_UNCONFINED=1 environment variable also allows it). */
  allowUnconfined: boolean;
}

export interface RunConfig {
  /** The reference recipe whose values are the defaults. Defaults to "spade-games". */
  recipe: RecipeName;
  /** The workspace database. Relative to the config file. */
  db: string;
  name: string | null;
  /** Defaults to 42. */
  seed: number;
  /** Rollouts (an iteration is one rollout of the reference). Defaults to 400. */
  iterations: number;
  /** Games per regeneration batch (slots). Defaults to 24. */
  envsPerIteration: number;
  /** Unhinted plays of every game in every rollout, the canary included. Defaults to 16. */
  plays: number;
  /** Hinted plays of every game, once, in the rollout that generated it. Defaults to 16. */
  hintPlays: number;
  /** Defaults to 25. */
  maxTurns: number;
  /** Games are generated every this many rollouts and replayed in between. Defaults to the recipe's (4 games, 8 tool use). */
  regenerationInterval: number;
  /** Skills rotated in per regeneration; null = all. Defaults to the recipe's (3 games, all for tool use). */
  skillsPerRegen: number | null;
  /** The model: a local GGUF through node-llama-cpp, or an OpenAI-compatible server. */
  backend: BackendConfig;
  /** null: no grounding document (ablation "no corpus"). */
  corpus: CorpusConfig | null;
  /** The first unhinted play of each game in each rollout runs alone; a time-out skips the rest. Defaults to true. */
  canary: boolean;
  designer: DesignerConfig;
  reward: RewardConfig;
  memory: MemoryConfig;
  agent: AgentConfig;
  hint: HintConfig;
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

/** The games recipe's skills (kept for callers of the old name). */
export const defaultSkills: readonly string[] = recipeGameSkills;

/** A run's name is a label: at most this many characters. */
export const maxRunNameLength = 200;

const topKeys = ["recipe", "db", "name", "seed", "iterations", "envsPerIteration", "plays", "hintPlays", "maxTurns", "regenerationInterval", "skillsPerRegen", "backend", "corpus", "canary", "designer", "reward", "memory", "agent", "hint", "sandbox", "trainer", "training"];

/**
 * Reads a run config (the JSON of `spade run --config`). Unknown keys and wrong types are refused
 * with a message naming the key; `where` names the file. Keys left out take the recipe's value
 * (`recipe`, default "spade-games"). Paths stay as written: the caller resolves them against the
 * config file's folder. A parsed config reads back as itself (runs store theirs).
 */
export function parseRunConfig(value: unknown, where: string): RunConfig {
  const c = readObject(where, "", value, topKeys);
  for (const key of ["db", "backend", "corpus"]) {
    if (!(key in c)) throw new InputError(`${where}: ${key}: required key is missing`);
  }
  const recipe = (optional(c.recipe, (v) => readString(where, "recipe", v, { oneOf: recipeNames })) ?? "spade-games") as RecipeName;
  const d = recipeDefaults(recipe);
  const int = (key: "seed" | "iterations" | "envsPerIteration" | "plays" | "hintPlays" | "maxTurns" | "regenerationInterval", min: number) =>
    optional(c[key], (v) => readInteger(where, key, v, min)) ?? d[key];
  const designer = readDesigner(where, c.designer, d);
  const skillsPerRegen = c.skillsPerRegen === undefined ? d.skillsPerRegen : c.skillsPerRegen === null ? null : readInteger(where, "skillsPerRegen", c.skillsPerRegen, 1, designer.skills.length);
  return {
    recipe,
    db: readString(where, "db", c.db, { nonEmpty: true }),
    name: optional(c.name ?? undefined, (v) => readString(where, "name", v, { maxLength: maxRunNameLength })) ?? null,
    seed: int("seed", 0),
    iterations: int("iterations", 1),
    envsPerIteration: int("envsPerIteration", 1),
    plays: int("plays", 1),
    hintPlays: int("hintPlays", 0),
    maxTurns: int("maxTurns", 1),
    regenerationInterval: int("regenerationInterval", 1),
    skillsPerRegen: skillsPerRegen === null ? null : Math.min(skillsPerRegen, designer.skills.length),
    backend: parseBackendConfig(c.backend, where),
    corpus: c.corpus === null ? null : readCorpus(where, c.corpus, d),
    canary: optional(c.canary, (v) => readBoolean(where, "canary", v)) ?? true,
    designer,
    reward: readReward(where, c.reward, d),
    memory: readMemory(where, c.memory),
    agent: readAgent(where, c.agent, d),
    hint: readHint(where, c.hint, d),
    sandbox: readSandbox(where, c.sandbox),
    ...(c.trainer === undefined ? {} : { trainer: readTrainer(where, c.trainer) }),
    ...(c.training === undefined ? {} : { training: parseTrainingConfig(where, c.training) }),
  };
}

function readCorpus(where: string, value: unknown, d: RecipeDefaults): CorpusConfig {
  const o = readObject(where, "corpus", value, ["path", "maxWords"]);
  return {
    path: readString(where, "corpus.path", o.path, { nonEmpty: true }),
    maxWords: optional(o.maxWords, (v) => readInteger(where, "corpus.maxWords", v, 1)) ?? d.corpusMaxWords,
  };
}

function readDesigner(where: string, value: unknown, d: RecipeDefaults): DesignerConfig {
  const o = readObject(where, "designer", value ?? {}, ["kind", "set", "attempts", "repair", "temperature", "maxTokens", "skills", "difficulty", "randomDifficulty", "difficulties", "toolUse", "thinking", "repairBraces"]);
  const kind = (optional(o.kind, (v) => readString(where, "designer.kind", v, { oneOf: ["llm", "fixed"] })) ?? "llm") as DesignerConfig["kind"];
  const set = optional(o.set ?? undefined, (v) => readString(where, "designer.set", v, { nonEmpty: true })) ?? null;
  if (kind === "fixed" && set === null) throw new InputError(`${where}: designer.set: required when designer.kind is "fixed" (the environment set to draw from)`);
  const skills = optional(o.skills, (v) => readStringArray(where, "designer.skills", v)) ?? d.designer.skills;
  if (skills.length === 0) throw new InputError(`${where}: designer.skills: expected at least one skill, got []`);
  const difficulties = optional(o.difficulties, (v) => readStringArray(where, "designer.difficulties", v)) ?? ["easy", "medium", "hard"];
  if (difficulties.length === 0) throw new InputError(`${where}: designer.difficulties: expected at least one difficulty, got []`);
  return {
    kind,
    set,
    attempts: optional(o.attempts, (v) => readInteger(where, "designer.attempts", v, 1, 20)) ?? d.designer.attempts,
    repair: optional(o.repair, (v) => readBoolean(where, "designer.repair", v)) ?? false,
    temperature: optional(o.temperature, (v) => readNumber(where, "designer.temperature", v, 0, 5)) ?? d.designer.temperature,
    maxTokens: optional(o.maxTokens, (v) => readInteger(where, "designer.maxTokens", v, 1)) ?? d.designer.maxTokens,
    skills,
    difficulty: optional(o.difficulty, (v) => readString(where, "designer.difficulty", v, { nonEmpty: true })) ?? d.designer.difficulty,
    // A config written before `randomDifficulty` existed drew from its `difficulties`: keep that.
    randomDifficulty: optional(o.randomDifficulty, (v) => readBoolean(where, "designer.randomDifficulty", v)) ?? o.difficulties !== undefined,
    difficulties,
    toolUse: optional(o.toolUse, (v) => readBoolean(where, "designer.toolUse", v)) ?? d.designer.toolUse,
    thinking: readThinking(where, "designer.thinking", o.thinking),
    repairBraces: optional(o.repairBraces, (v) => readBoolean(where, "designer.repairBraces", v)) ?? true,
  };
}

function readReward(where: string, value: unknown, d: RecipeDefaults): RewardConfig {
  const o = readObject(where, "reward", value ?? {}, [
    "kind", "regretScale", "regretWeight", "plateauWeight", "plateau", "ramp", "timeoutPenalty", "timeoutInBlend", "invalidReward",
    "proposerDelay", "scale", "lpFastGamma", "lpSlowGamma", "microLpWeight", "microLpScale", "frontierWeight", "frontierScale",
  ]);
  let plateau: [number, number] = [0.4, 0.6];
  if (o.plateau !== undefined) {
    if (!Array.isArray(o.plateau) || o.plateau.length !== 2) throw new InputError(`${where}: reward.plateau: expected [low, high], got ${JSON.stringify(o.plateau)}`);
    const low = readNumber(where, "reward.plateau[0]", o.plateau[0], 0, 1);
    const high = readNumber(where, "reward.plateau[1]", o.plateau[1], low, 1);
    plateau = [low, high];
  }
  const num = (key: string, min: number, max: number, fallback: number) => optional(o[key], (v) => readNumber(where, `reward.${key}`, v, min, max)) ?? fallback;
  const regretWeight = num("regretWeight", 0, 1, 0.4);
  const lpFastGamma = num("lpFastGamma", 0, 1, 0.98);
  const lpSlowGamma = num("lpSlowGamma", 0, 1, 0.85);
  if (!(lpFastGamma > lpSlowGamma)) throw new InputError(`${where}: reward.lpFastGamma: expected a number above reward.lpSlowGamma (${lpSlowGamma}), got ${lpFastGamma}`);
  return {
    kind: (optional(o.kind, (v) => readString(where, "reward.kind", v, { oneOf: rewardKinds })) ?? "blend") as RewardKind,
    regretScale: num("regretScale", 1e-9, Infinity, 0.15),
    regretWeight,
    plateauWeight: num("plateauWeight", 0, 10, 1 - regretWeight),
    plateau,
    ramp: num("ramp", 0, 1, 0.25),
    timeoutPenalty: num("timeoutPenalty", -10, 10, -0.5),
    timeoutInBlend: optional(o.timeoutInBlend, (v) => readBoolean(where, "reward.timeoutInBlend", v)) ?? false,
    invalidReward: num("invalidReward", -10, 10, 0),
    proposerDelay: optional(o.proposerDelay, (v) => readInteger(where, "reward.proposerDelay", v, 0, 1000)) ?? d.reward.proposerDelay,
    scale: num("scale", 0, 1e6, d.reward.scale),
    lpFastGamma,
    lpSlowGamma,
    microLpWeight: num("microLpWeight", 0, 10, 0),
    microLpScale: num("microLpScale", 1e-9, Infinity, 0.1),
    frontierWeight: num("frontierWeight", 0, 10, 0),
    frontierScale: num("frontierScale", 1e-9, Infinity, 0.08),
  };
}

function readMemory(where: string, value: unknown): MemoryConfig {
  const o = readObject(where, "memory", value ?? {}, ["enabled", "capacity", "references", "novelty", "codeSimilarity", "observationSimilarity"]);
  return {
    enabled: optional(o.enabled, (v) => readBoolean(where, "memory.enabled", v)) ?? true,
    capacity: optional(o.capacity, (v) => readInteger(where, "memory.capacity", v, 1)) ?? 200,
    references: optional(o.references, (v) => readInteger(where, "memory.references", v, 0, 10)) ?? 2,
    novelty: optional(o.novelty, (v) => readBoolean(where, "memory.novelty", v)) ?? false,
    codeSimilarity: optional(o.codeSimilarity, (v) => readNumber(where, "memory.codeSimilarity", v, 0, 1)) ?? 0.85,
    observationSimilarity: optional(o.observationSimilarity, (v) => readNumber(where, "memory.observationSimilarity", v, 0, 1)) ?? 0.9,
  };
}

function readAgent(where: string, value: unknown, d: RecipeDefaults): AgentConfig {
  const o = readObject(where, "agent", value ?? {}, ["temperature", "topP", "topK", "maxTokens", "historyTurns", "thinking"]);
  return {
    temperature: optional(o.temperature, (v) => readNumber(where, "agent.temperature", v, 0, 5)) ?? d.agent.temperature,
    topP: optional(o.topP, (v) => readNumber(where, "agent.topP", v, 0, 1)) ?? d.agent.topP,
    topK: optional(o.topK, (v) => readInteger(where, "agent.topK", v, 0)) ?? d.agent.topK,
    maxTokens: optional(o.maxTokens, (v) => readInteger(where, "agent.maxTokens", v, 1)) ?? d.agent.maxTokens,
    historyTurns: optional(o.historyTurns ?? undefined, (v) => readInteger(where, "agent.historyTurns", v, 1)) ?? null,
    thinking: readThinking(where, "agent.thinking", o.thinking),
  };
}

function readHint(where: string, value: unknown, d: RecipeDefaults): HintConfig {
  const o = readObject(where, "hint", value ?? {}, ["temperature", "maxTokens", "leakCheck", "useEnvHint", "thinking"]);
  return {
    temperature: optional(o.temperature, (v) => readNumber(where, "hint.temperature", v, 0, 5)) ?? d.hint.temperature,
    maxTokens: optional(o.maxTokens, (v) => readInteger(where, "hint.maxTokens", v, 1)) ?? d.hint.maxTokens,
    leakCheck: optional(o.leakCheck, (v) => readBoolean(where, "hint.leakCheck", v)) ?? false,
    useEnvHint: optional(o.useEnvHint, (v) => readBoolean(where, "hint.useEnvHint", v)) ?? false,
    thinking: readThinking(where, "hint.thinking", o.thinking),
  };
}

function readThinking(where: string, key: string, value: unknown): ThinkingMode {
  return (optional(value, (v) => readString(where, key, v, { oneOf: ["off", "on", "auto"] })) ?? "off") as ThinkingMode;
}

function readSandbox(where: string, value: unknown): SandboxConfig {
  const o = readObject(where, "sandbox", value ?? {}, ["stepTimeoutMs", "validationTimeoutMs", "processes", "allowUnconfined"]);
  return {
    stepTimeoutMs: optional(o.stepTimeoutMs, (v) => readInteger(where, "sandbox.stepTimeoutMs", v, 1)) ?? 30_000,
    validationTimeoutMs: optional(o.validationTimeoutMs, (v) => readInteger(where, "sandbox.validationTimeoutMs", v, 1)) ?? 60_000,
    processes: optional(o.processes ?? undefined, (v) => readInteger(where, "sandbox.processes", v, 1, 1024)) ?? null,
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
