import * as z from "zod";
import { backendSchema, withoutUndefined, type BackendConfig } from "./backendConfig.js";
import type { ThinkingMode } from "./llm.js";
import { evalBlockSchema, fillEvalBlock, fillTrainingConfig, trainingSchema, type TrainingConfig } from "./trainingConfig.js";
import { fillLibrary, librarySchema, type LibraryConfig } from "./libraryConfig.js";
import { InputError } from "./validation/InputError.js";
import { addRuleIssue, bool, expecting, int, num, oneOf, parseConfig, strict, text, textList, textRecord, type Assert } from "./validation/schema.js";
import { fixedEnvironmentCount, isFixedRlveRecipe, recipeDefaults, recipeNames, type RecipeDefaults, type RecipeName } from "./runRecipes.js";
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
  /** Defaults to the recipe's ("blend": 0.4 * clip(regret / 0.15, 0, 1) + 0.6 * plateau(mean return), negatives masked; "regret" in spade-tool-use-4b). */
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
  /**
   * Skill-centred designer rewards are multiplied by this for the designer's advantage. "auto": the
   * reference's per-step scale, (agent samples of the scoring rollout / designer samples scored)
   * x regeneration interval, capped at 50. Defaults to the recipe's ("auto").
   */
  scale: number | "auto";
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
  /** "llm": the model writes environments; "fixed": draw from an environment set (the paper's static-pool baseline); "library": problems of an installed environment library (`library`: the RLVE baseline). Defaults to "llm". */
  kind: "llm" | "fixed" | "library";
  /** The environment set a fixed designer draws from. Required with kind "fixed". */
  set: string | null;
  /** The environment library of kind "library" (RLVE, GEM, reasoning-gym). Required with kind "library". */
  library: LibraryConfig | null;
  /** Designer calls per slot, each an independent sample (or a repair turn with `repair`). Defaults to 5. */
  attempts: number;
  /** Deviation: a failed attempt is followed by a repair turn with the validator's error instead of an independent re-sample. Defaults to false. */
  repair: boolean;
  /** Defaults to the recipe's (0.6). */
  temperature: number;
  /** Defaults to the recipe's (0.95). */
  topP: number;
  /** Defaults to the recipe's (20). */
  topK: number;
  /** Defaults to the recipe's (16384; 20000 in spade-games-8b). */
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
  /** Whether a thinking model reasons first: "off" (the launchers' enable_thinking: false), "on", or "auto" (the model's default). Defaults to the recipe's ("off"; "on" in spade-games-8b). */
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
  /** Whether a thinking model reasons first: "off" (the launchers' enable_thinking: false), "on", or "auto" (the model's default). Defaults to the recipe's ("off"; "on" in spade-games-8b). */
  thinking: ThinkingMode;
  /**
   * A tool-use reply with a `<tool_call>` that cannot be parsed is not trained, and a format note
   * naming the expected call is appended to the next observation (the tool-use launcher's
   * SPADE_MASK_MALFORMED_TOOLCALL). Defaults to the recipe's (false games, true tool use).
   */
  maskMalformedToolCalls: boolean;
  /**
   * Deviation: strings that end an agent reply as an end-of-sequence token does (a reply that
   * reaches one counts as finished, not cut off). For small models that never stop by themselves.
   * Defaults to null (none, as the reference).
   */
  stop: string[] | null;
}

export interface HintConfig {
  /** Defaults to 0.3. */
  temperature: number;
  /** Defaults to 0.9 (the reference's `generate_async` default, which its hint writer leaves as it is). */
  topP: number;
  /** Defaults to 20 (the reference's adapter's `default_sampling_params`). */
  topK: number;
  /** Defaults to the recipe's (4096 games, 2048 tool use). */
  maxTokens: number;
  /** Deviation: a written hint that spells out the solution is asked for again, then redacted. Defaults to false. */
  leakCheck: boolean;
  /** Deviation: an environment's own `hint()` is used instead of the hint writer (it passes the leak check). Defaults to false. */
  useEnvHint: boolean;
  /** Whether a thinking model reasons first: "off" (the launchers' enable_thinking: false), "on", or "auto" (the model's default). Defaults to "off". */
  thinking: ThinkingMode;
}

export interface ValidatorConfig {
  /**
   * Deviation: this project's extra checks (determinism replay, reward range [-1, 1], non-empty
   * `solution()` and `hint()`, random probes, observation size) make a game invalid, not only the
   * reference's rule. Defaults to false (they are stored and shown as warnings).
   */
  strict: boolean;
}

export interface SandboxConfig {
  /** Defaults to 30000 ms (SPADE's per-step limit). */
  stepTimeoutMs: number;
  /** Defaults to 60000 ms. */
  validationTimeoutMs: number;
  /** Sandbox processes kept for the run; null sizes the pool from the backend's concurrency and free memory. Defaults to null. */
  processes: number | null;
  /** The most plays of one game a sandbox process holds open at once (the child switches between them by an exact memory restore); 1 gives every play a process of its own. Defaults to 8. */
  playsPerProcess: number;
  /** A sandbox process whose game no longer needs it is put back to its pristine state (memory restored byte for byte, everything outside it fingerprinted) and serves another game, instead of a new process being started; see the README's threat model. Defaults to true. */
  recycleProcesses: boolean;
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
  /** Games per regeneration batch (slots). Defaults to the recipe's (24; for fixed-rlve the reference's int(1.25 x actorBatch + 2) // plays, at most the set's size: 16 with official16, 20 with "all"). */
  envsPerIteration: number;
  /** Agent samples of one training step (the reference's global batch size): sizes the plays and trims the step's batch. Defaults to the recipe's (192). */
  actorBatch: number;
  /** Unhinted plays of every game in every rollout, the canary included; null: ceil(actorBatch / valid games of the batch), as the reference. Defaults to null. */
  plays: number | null;
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
  /** The first unhinted play of each game in each rollout leads the others (`CanaryLead`): they start once its reset answered and take each step after it took it; a time-out skips the rest. Defaults to true. */
  canary: boolean;
  designer: DesignerConfig;
  reward: RewardConfig;
  memory: MemoryConfig;
  agent: AgentConfig;
  hint: HintConfig;
  /** Which validation checks make a game invalid. */
  validator: ValidatorConfig;
  sandbox: SandboxConfig;
  /** How `spade train` turns this run's plays into an adapter. Absent: no trainer configured. */
  trainer?: TrainerConfig;
  /** Training inside the run (shared/trainingConfig.ts). Defaults to the recipe's (the built-in trainer after every rollout); null: the run only collects experience (ablation "collect only"). */
  training: TrainingConfig | null;
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

/** The export formats a trainer can ask for (see `spade export --format`). */
export const trainerFormats = ["grpo", "designer", "trl-sft", "trl-kto", "art"] as const;
export type TrainerFormat = (typeof trainerFormats)[number];

const nonEmpty = () => text({ nonEmpty: true });
const thinking = () => oneOf(["off", "on", "auto"]).optional().describe('Whether a thinking model reasons first: "off", "on" or "auto" (the model\'s default). Defaults to the recipe\'s ("off"; "on" for the designer and agent in spade-games-8b).');

/** A command run as a child process: an argv array (no shell) or one string (run by the shell). */
const commandTemplate = expecting(z.union([nonEmpty(), textList()]), "an argv array or a shell command string");

const designerSchema = strict({
  kind: oneOf(["llm", "fixed", "library"]).optional().describe('"llm": the model writes environments; "fixed": draw from an environment set; "library": an installed environment library (RLVE, GEM, reasoning-gym). Defaults to "llm".'),
  set: nonEmpty().nullish().describe('The environment set a fixed designer draws from. Required with kind "fixed".'),
  library: librarySchema.nullish().describe('The environment library of kind "library": {"kind": "rlve", "path": ".../Gym", "set": "official16"}.'),
  attempts: int(1, 20).optional().describe("Designer calls per slot. Defaults to 5."),
  repair: bool().optional().describe("A failed attempt is followed by a repair turn with the validator's error. Defaults to false."),
  temperature: num(0, 5).optional(),
  topP: num(0, 1).optional(),
  topK: int(0).optional(),
  maxTokens: int(1).optional(),
  skills: textList().optional().describe("The configured skills, rotated skillsPerRegen at a time. Defaults to the recipe's."),
  difficulty: nonEmpty().optional().describe('The difficulty every game is asked for. Defaults to "medium".'),
  randomDifficulty: bool().optional().describe("Draw each slot's difficulty from difficulties at random. Defaults to false (true when only difficulties is given)."),
  difficulties: textList().optional().describe('Difficulties drawn with randomDifficulty. Defaults to ["easy", "medium", "hard"].'),
  toolUse: bool().optional().describe("Tool-use environments. Defaults to the recipe's."),
  thinking: thinking(),
  repairBraces: bool().optional().describe("The f-string brace repair of the designer's code before validation. Defaults to true."),
}).superRefine((designer, context) => {
  if (designer.kind === "fixed" && (designer.set ?? null) === null) addRuleIssue(context, ["set"], 'required when designer.kind is "fixed" (the environment set to draw from)');
  if (designer.kind === "library" && (designer.library ?? null) === null) addRuleIssue(context, ["library"], 'required when designer.kind is "library" (e.g. {"kind": "rlve", "path": ".../Gym"})');
});

const plateau = expecting(z.tuple([num(0, 1), num(0, 1)]), "[low, high]").superRefine(([low, high], context) => {
  if (high < low) addRuleIssue(context, [1], `expected a number in [${low}, 1], got ${high}`);
});

const rewardSchema = strict({
  kind: oneOf(rewardKinds).optional().describe('The designer reward variant. Defaults to "blend".'),
  regretScale: num(1e-9).optional(),
  regretWeight: num(0, 1).optional(),
  plateauWeight: num(0, 10).optional(),
  plateau: plateau.optional(),
  ramp: num(0, 1).optional(),
  timeoutPenalty: num(-10, 10).optional(),
  timeoutInBlend: bool().optional(),
  invalidReward: num(-10, 10).optional(),
  proposerDelay: int(0, 1000).optional(),
  scale: z.union([z.literal("auto"), num(0, 1e6)]).optional().describe('The designer advantage\'s multiplier; "auto": (agent samples / designer samples) x regeneration interval, capped at 50. Defaults to "auto".'),
  lpFastGamma: num(0, 1).optional(),
  lpSlowGamma: num(0, 1).optional(),
  microLpWeight: num(0, 10).optional(),
  microLpScale: num(1e-9).optional(),
  frontierWeight: num(0, 10).optional(),
  frontierScale: num(1e-9).optional(),
});

const memorySchema = strict({
  enabled: bool().optional().describe("false: no memory references in the designer prompt. Defaults to true."),
  capacity: int(1).optional(),
  references: int(0, 10).optional(),
  novelty: bool().optional(),
  codeSimilarity: num(0, 1).optional(),
  observationSimilarity: num(0, 1).optional(),
});

const agentSchema = strict({
  temperature: num(0, 5).optional(),
  topP: num(0, 1).optional(),
  topK: int(0).optional(),
  maxTokens: int(1).optional(),
  historyTurns: int(1).nullish().describe("Keep only the last N exchanges in the agent's prompt. Defaults to all."),
  maskMalformedToolCalls: bool().optional().describe("A tool-use reply with an unparsable <tool_call> is not trained and the next observation gets a format note. Defaults to the recipe's (true for tool use)."),
  thinking: thinking(),
  stop: z.array(text({ nonEmpty: true, maxLength: 100 })).max(16).nullish().describe("Deviation: strings that end an agent reply as an end-of-sequence token does. Defaults to none."),
});

const hintSchema = strict({
  temperature: num(0, 5).optional(),
  topP: num(0, 1).optional().describe("Defaults to 0.9 (the reference's hint writer)."),
  topK: int(0).optional().describe("Defaults to 20 (the reference's hint writer)."),
  maxTokens: int(1).optional(),
  leakCheck: bool().optional(),
  useEnvHint: bool().optional(),
  thinking: thinking(),
});

const validatorSchema = strict({
  strict: bool().optional().describe("Deviation: this project's extra checks (determinism, reward range [-1, 1], solution(), hint(), random probes, observation size) make a game invalid. Defaults to false (warnings)."),
});

const sandboxSchema = strict({
  stepTimeoutMs: int(1).optional(),
  validationTimeoutMs: int(1).optional(),
  processes: int(1, 1024).nullish().describe("Sandbox processes kept for the run; null sizes the pool from the backend. Defaults to null."),
  playsPerProcess: int(1, 64).optional().describe("The most plays of one game a sandbox process holds open at once; 1 gives every play a process of its own. Defaults to 8."),
  recycleProcesses: bool().optional().describe("Put a sandbox process whose game no longer needs it back to its pristine state (memory restored, state outside it fingerprinted) to serve another game, instead of starting a new process. Defaults to true."),
  allowUnconfined: bool().optional().describe("Run generated code even where no OS confinement is available. Defaults to false."),
});

const trainerSchema = strict({
  command: commandTemplate.describe("The trainer: placeholders {dataset}, {baseModel}, {previousAdapter}, {previousAdapterDir}, {outputDir}."),
  convert: commandTemplate.nullish(),
  env: textRecord().optional(),
  cwd: nonEmpty().nullish(),
  baseModel: nonEmpty().nullish(),
  formats: expecting(z.array(oneOf(trainerFormats)).min(1), "a non-empty array of formats").optional(),
  includeHinted: bool().optional(),
  timeoutMs: int(1).nullish(),
  eval: evalBlockSchema.nullish(),
}).superRefine((trainer, context) => {
  if (trainer.formats && new Set(trainer.formats).size !== trainer.formats.length) addRuleIssue(context, ["formats"], `each format may appear once, got ${JSON.stringify(trainer.formats)}`);
});

/**
 * The run config as a user writes it (the JSON of `spade run --config`): every key but `db`,
 * `backend` and `corpus` may be left out, taking the recipe's value.
 */
export const runConfigSchema = strict({
  $schema: text().optional().describe("The JSON Schema of this file, for editors. Ignored."),
  recipe: oneOf(recipeNames).optional().describe('The reference recipe whose values are the defaults: "spade-games", "spade-tool-use", "spade-tool-use-4b" (the 4B tool-use arm: regret_based, interval and delay 32), "spade-games-8b" (the 8B games launcher), "fixed-rlve" (the RLVE baseline; needs designer.kind "library") or "fixed-rlve-8b" (its 8B launcher: thinking on). Defaults to "spade-games".'),
  db: nonEmpty().describe("The workspace database. Relative to the config file."),
  name: text({ maxLength: maxRunNameLength }).nullish().describe("The run's label."),
  seed: int(0).optional().describe("Defaults to 42."),
  iterations: int(1).optional().describe("Rollouts. Defaults to 400."),
  envsPerIteration: int(1).optional().describe("Games per regeneration batch (slots). Defaults to the recipe's (24; fixed-rlve: the reference's int(1.25 x actorBatch + 2) // plays, at most the set: 16 official16, 20 all)."),
  actorBatch: int(1).optional().describe("Agent samples of one training step (the reference's global batch size). Defaults to 192."),
  plays: int(1).nullish().describe("Unhinted plays of every game in every rollout, the canary included; null: ceil(actorBatch / valid games). Defaults to null."),
  hintPlays: int(0).optional().describe("Hinted plays of every game, once, in the rollout that generated it. Defaults to 16."),
  maxTurns: int(1).optional().describe("Defaults to 25."),
  regenerationInterval: int(1).optional().describe("Games are generated every this many rollouts. Defaults to the recipe's (4 games, 8 tool use)."),
  skillsPerRegen: int(1).nullish().describe("Skills rotated in per regeneration; null = all. Defaults to the recipe's."),
  backend: backendSchema.describe("The model: a local GGUF through node-llama-cpp (kind llama), or an OpenAI-compatible server (kind openai)."),
  corpus: strict({ path: nonEmpty(), maxWords: int(1).optional() }).nullable().describe("The grounding document; null: none (ablation \"no corpus\")."),
  canary: bool().optional().describe("The first unhinted play of each game leads: the game's other plays start once its reset answered and take each step after it took it; a time-out skips the rest. Defaults to true."),
  designer: designerSchema.nullish(),
  reward: rewardSchema.nullish(),
  memory: memorySchema.nullish(),
  agent: agentSchema.nullish(),
  hint: hintSchema.nullish(),
  validator: validatorSchema.nullish().describe("Which validation checks make a game invalid: the reference's rule by default."),
  sandbox: sandboxSchema.nullish(),
  trainer: trainerSchema.optional().describe("How spade train turns this run's plays into an adapter."),
  training: trainingSchema.nullish().describe("Training inside the run. Defaults to the recipe's (the built-in trainer after every rollout); null: the run only collects experience."),
});

/** A run config as written. A parsed `RunConfig` is one too (runs store theirs and read it back). */
export type RunConfigInput = z.input<typeof runConfigSchema>;
type _RunConfigReadsBack = Assert<RunConfig extends RunConfigInput ? true : false>;

/**
 * Reads a run config (the JSON of `spade run --config`). Unknown keys and wrong types are refused
 * with a message naming the key; `where` names the file. Keys left out take the recipe's value
 * (`recipe`, default "spade-games"). Paths stay as written: the caller resolves them against the
 * config file's folder. A top-level `$schema` is accepted and left out of the result. A parsed
 * config reads back as itself (runs store theirs).
 */
export function parseRunConfig(value: unknown, where: string): RunConfig {
  const c = parseConfig(runConfigSchema, value, where);
  const recipe = c.recipe ?? "spade-games";
  const d = recipeDefaults(recipe);
  const designer = fillDesigner(c.designer ?? {}, d, where);
  if (c.skillsPerRegen != null && c.skillsPerRegen > designer.skills.length) {
    throw new InputError(`${where}: skillsPerRegen: expected an integer in [1, ${designer.skills.length}], got ${c.skillsPerRegen}`);
  }
  const skillsPerRegen = c.skillsPerRegen === undefined ? d.skillsPerRegen : c.skillsPerRegen;
  if (isFixedRlveRecipe(recipe) && designer.kind !== "library") {
    // Never LLM-designed games under the RLVE baseline's name: the recipe needs its library.
    throw new InputError(`${where}: designer.library: recipe "${recipe}" plays an environment library (RLVE); expected designer {"kind": "library", "library": {"kind": "rlve", "path": ".../Gym"}}, got designer.kind ${JSON.stringify(designer.kind)}`);
  }
  const actorBatch = c.actorBatch ?? d.actorBatch;
  const plays = c.plays === undefined ? d.plays : c.plays;
  return {
    recipe,
    db: c.db,
    name: c.name ?? null,
    seed: c.seed ?? d.seed,
    iterations: c.iterations ?? d.iterations,
    envsPerIteration: c.envsPerIteration ?? (isFixedRlveRecipe(recipe) && plays !== null ? fixedEnvironmentCount(actorBatch, plays, librarySetSize(designer.library)) : d.envsPerIteration),
    actorBatch,
    plays,
    hintPlays: c.hintPlays ?? d.hintPlays,
    maxTurns: c.maxTurns ?? d.maxTurns,
    regenerationInterval: c.regenerationInterval ?? d.regenerationInterval,
    skillsPerRegen: skillsPerRegen === null ? null : Math.min(skillsPerRegen, designer.skills.length),
    backend: withoutUndefined(c.backend),
    corpus: c.corpus === null ? null : { path: c.corpus.path, maxWords: c.corpus.maxWords ?? d.corpusMaxWords },
    canary: c.canary ?? true,
    designer,
    reward: fillReward(where, c.reward ?? {}, d),
    memory: fillMemory(c.memory ?? {}),
    agent: fillAgent(c.agent ?? {}, d),
    hint: fillHint(c.hint ?? {}, d),
    validator: { strict: c.validator?.strict ?? false },
    sandbox: fillSandbox(c.sandbox ?? {}),
    ...(c.trainer === undefined ? {} : { trainer: fillTrainer(c.trainer) }),
    training: c.training === null ? null : fillTrainingConfig(c.training ?? {}, d.training),
  };
}

/** How many environments a library's set names: official16's 16, a list's length; null for RLVE's "all" (more than any rollout plays). */
function librarySetSize(library: LibraryConfig | null): number | null {
  if (library === null || library.set === "all") return null;
  return library.set === "official16" ? 16 : library.set.length;
}

function fillDesigner(o: z.output<typeof designerSchema>, d: RecipeDefaults, where: string): DesignerConfig {
  return {
    kind: o.kind ?? "llm",
    set: o.set ?? null,
    library: o.library ? fillLibrary(o.library, where) : null,
    attempts: o.attempts ?? d.designer.attempts,
    repair: o.repair ?? false,
    temperature: o.temperature ?? d.designer.temperature,
    topP: o.topP ?? d.designer.topP,
    topK: o.topK ?? d.designer.topK,
    maxTokens: o.maxTokens ?? d.designer.maxTokens,
    skills: o.skills ?? d.designer.skills,
    difficulty: o.difficulty ?? d.designer.difficulty,
    // A config written before `randomDifficulty` existed drew from its `difficulties`: keep that.
    randomDifficulty: o.randomDifficulty ?? o.difficulties !== undefined,
    difficulties: o.difficulties ?? ["easy", "medium", "hard"],
    toolUse: o.toolUse ?? d.designer.toolUse,
    thinking: o.thinking ?? d.thinking.designer,
    repairBraces: o.repairBraces ?? true,
  };
}

function fillReward(where: string, o: z.output<typeof rewardSchema>, d: RecipeDefaults): RewardConfig {
  const regretWeight = o.regretWeight ?? 0.4;
  const lpFastGamma = o.lpFastGamma ?? 0.98;
  const lpSlowGamma = o.lpSlowGamma ?? 0.85;
  if (!(lpFastGamma > lpSlowGamma)) throw new InputError(`${where}: reward.lpFastGamma: expected a number above reward.lpSlowGamma (${lpSlowGamma}), got ${lpFastGamma}`);
  return {
    kind: o.kind ?? d.reward.kind,
    regretScale: o.regretScale ?? 0.15,
    regretWeight,
    plateauWeight: o.plateauWeight ?? 1 - regretWeight,
    plateau: o.plateau ?? [0.4, 0.6],
    ramp: o.ramp ?? 0.25,
    timeoutPenalty: o.timeoutPenalty ?? -0.5,
    timeoutInBlend: o.timeoutInBlend ?? false,
    invalidReward: o.invalidReward ?? 0,
    proposerDelay: o.proposerDelay ?? d.reward.proposerDelay,
    scale: o.scale ?? d.reward.scale,
    lpFastGamma,
    lpSlowGamma,
    microLpWeight: o.microLpWeight ?? 0,
    microLpScale: o.microLpScale ?? 0.1,
    frontierWeight: o.frontierWeight ?? 0,
    frontierScale: o.frontierScale ?? 0.08,
  };
}

function fillMemory(o: z.output<typeof memorySchema>): MemoryConfig {
  return {
    enabled: o.enabled ?? true,
    capacity: o.capacity ?? 200,
    references: o.references ?? 2,
    novelty: o.novelty ?? false,
    codeSimilarity: o.codeSimilarity ?? 0.85,
    observationSimilarity: o.observationSimilarity ?? 0.9,
  };
}

function fillAgent(o: z.output<typeof agentSchema>, d: RecipeDefaults): AgentConfig {
  return {
    temperature: o.temperature ?? d.agent.temperature,
    topP: o.topP ?? d.agent.topP,
    topK: o.topK ?? d.agent.topK,
    maxTokens: o.maxTokens ?? d.agent.maxTokens,
    historyTurns: o.historyTurns ?? null,
    maskMalformedToolCalls: o.maskMalformedToolCalls ?? d.agent.maskMalformedToolCalls,
    thinking: o.thinking ?? d.thinking.agent,
    stop: o.stop ?? null,
  };
}

function fillHint(o: z.output<typeof hintSchema>, d: RecipeDefaults): HintConfig {
  return {
    temperature: o.temperature ?? d.hint.temperature,
    topP: o.topP ?? 0.9,
    topK: o.topK ?? 20,
    maxTokens: o.maxTokens ?? d.hint.maxTokens,
    leakCheck: o.leakCheck ?? false,
    useEnvHint: o.useEnvHint ?? false,
    thinking: o.thinking ?? d.thinking.hint,
  };
}

function fillSandbox(o: z.output<typeof sandboxSchema>): SandboxConfig {
  return {
    stepTimeoutMs: o.stepTimeoutMs ?? 30_000,
    validationTimeoutMs: o.validationTimeoutMs ?? 60_000,
    processes: o.processes ?? null,
    playsPerProcess: o.playsPerProcess ?? 8,
    recycleProcesses: o.recycleProcesses ?? true,
    allowUnconfined: o.allowUnconfined ?? false,
  };
}

function fillTrainer(o: z.output<typeof trainerSchema>): TrainerConfig {
  return {
    command: o.command,
    convert: o.convert ?? null,
    env: o.env ?? {},
    cwd: o.cwd ?? null,
    baseModel: o.baseModel ?? null,
    formats: o.formats ?? ["trl-sft", "grpo"],
    includeHinted: o.includeHinted ?? false,
    timeoutMs: o.timeoutMs ?? null,
    eval: o.eval ? fillEvalBlock(o.eval) : null,
  };
}
