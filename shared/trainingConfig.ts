import { InputError } from "./validation/InputError.js";
import { optional, readBoolean, readInteger, readNumber, readObject, readString, readStringArray } from "./validation/fields.js";

/** The roles a training round can train (one shared policy plays both). */
export const trainingRoles = ["agent", "designer"] as const;
export type TrainingRole = (typeof trainingRoles)[number];

/**
 * The trainer a round runs: the built-in `"gguf"` trainer (LoRA straight on the GGUF the run
 * uses), the Hugging Face `"hf"` trainer (transformers + PEFT), or any program speaking the same
 * line protocol (see README "Training inside the run").
 */
export type TrainingTrainer = { kind: "gguf" } | { kind: "hf" } | { kind: "command"; command: string[]; env: Record<string, string>; cwd: string | null };

/** GRPO hyperparameters of one round, passed to the trainer as `hyper`. */
export interface TrainingHyper {
  /** Adam learning rate of the LoRA weights. Defaults to 1e-3 (a LoRA policy-gradient rate, not a full fine-tune's). */
  learningRate: number;
  /** LoRA rank. Defaults to 8. */
  rank: number;
  /** LoRA alpha (scale = alpha / rank). Defaults to 16. */
  alpha: number;
  /** Passes over the round's batch. Defaults to 1. */
  epochs: number;
  /** Lower clip of the importance ratio, 1 - clipLow. Defaults to 0.2 (the reference). */
  clipLow: number;
  /** Upper clip of the importance ratio, 1 + clipHigh. Defaults to 0.28 (the reference). */
  clipHigh: number;
  /** Truncated importance sampling: the ratio's weight is capped here. Defaults to 2. */
  tisCap: number;
  /** KL penalty to the behaviour policy. Defaults to 0 (the reference). */
  klCoef: number;
  /** Tokens per optimiser step (sequences are packed up to this). Defaults to 4096. */
  maxTokensPerBatch: number;
}

export interface TrainingConfig {
  /** Iterations between training rounds; 1 = after every iteration (on-policy). */
  every: number;
  trainer: TrainingTrainer;
  /** Which roles' samples each round trains on. Defaults to ["agent", "designer"]. */
  roles: TrainingRole[];
  hyper: TrainingHyper;
  /** The designer advantage is (reward - mean reward of its skill in the batch) x this. Defaults to 1. */
  rewardScale: number;
  /** Train on canary plays. Defaults to false (left out and counted). */
  includeCanary: boolean;
  /** Train on hinted plays (the hint is privileged information). Defaults to false (left out and counted). */
  includeHinted: boolean;
  /** Train on plays that ended with an error. Defaults to false (left out and counted). */
  includeErrored: boolean;
  /** Free the inference model while the trainer runs. Defaults to true on a local GPU backend, false otherwise. */
  unloadModel: boolean | null;
  /** The Python interpreter of the built-in trainers. Defaults to "/usr/bin/python3" on Linux, "python3" elsewhere. */
  python: string | null;
  /** The trainer is stopped after this long per round. Defaults to no limit. */
  timeoutMs: number | null;
  /** PyTorch CPU threads of the built-in trainers (0: PyTorch's own default). Defaults to 0. */
  threads: number;
  /** The promotion gate: each new adapter is evaluated on a held-out suite against the one in use. Defaults to none (every adapter is used). */
  eval: TrainingEvalConfig | null;
}

export interface TrainingEvalConfig {
  /** A JSONL question suite or a folder of `.py` environments. Relative to the workspace folder. */
  suite: string;
  /** Questions (or environments) used. Defaults to all. */
  limit: number | null;
  /** The adapter is used unless its score is below the one in use by more than this. Defaults to 0. */
  margin: number;
  /** Generation budget per question. Defaults to 1024. */
  maxTokens: number;
}

export const defaultTrainingHyper: TrainingHyper = {
  learningRate: 1e-3,
  rank: 8,
  alpha: 16,
  epochs: 1,
  clipLow: 0.2,
  clipHigh: 0.28,
  tisCap: 2,
  klCoef: 0,
  maxTokensPerBatch: 4096,
};

const hyperKeys = Object.keys(defaultTrainingHyper);
const keys = ["every", "trainer", "roles", "hyper", "learningRate", "rank", "alpha", "epochs", "clipLow", "clipHigh", "tisCap", "klCoef", "maxTokensPerBatch", "rewardScale", "includeCanary", "includeHinted", "includeErrored", "unloadModel", "python", "timeoutMs", "threads", "eval"];

/**
 * Reads the `training` block of a run config. Unknown keys and wrong types are refused by key. A
 * parsed block reads back as itself (runs store their parsed config): hyperparameters are flat keys.
 */
export function parseTrainingConfig(where: string, value: unknown): TrainingConfig {
  const o = readObject(where, "training", value, keys);
  if (o.every === undefined) throw new InputError(`${where}: training.every: required key is missing (iterations between training rounds, >= 1)`);
  // Hyperparameters are flat keys; the parsed form keeps them under `hyper`, which reads back too.
  const prefix = o.hyper === undefined ? "training" : "training.hyper";
  const h = o.hyper === undefined ? o : readObject(where, prefix, o.hyper, hyperKeys);
  if (o.hyper !== undefined) {
    const both = hyperKeys.filter((key) => key in o);
    if (both.length > 0) throw new InputError(`${where}: training.${both[0]}: give hyperparameters either flat or under training.hyper, not both`);
  }
  const num = (key: keyof TrainingHyper, min: number, max = Infinity) => optional(h[key], (v) => readNumber(where, `${prefix}.${key}`, v, min, max)) ?? defaultTrainingHyper[key];
  const int = (key: keyof TrainingHyper, min: number) => optional(h[key], (v) => readInteger(where, `${prefix}.${key}`, v, min)) ?? defaultTrainingHyper[key];
  const roles = optional(o.roles, (v) => readStringArray(where, "training.roles", v)) ?? [...trainingRoles];
  roles.forEach((role, i) => readString(where, `training.roles[${i}]`, role, { oneOf: trainingRoles }));
  if (new Set(roles).size !== roles.length) throw new InputError(`${where}: training.roles: each role may appear once, got ${JSON.stringify(roles)}`);
  const flag = (key: string) => optional(o[key], (v) => readBoolean(where, `training.${key}`, v)) ?? false;
  return {
    every: readInteger(where, "training.every", o.every, 1),
    trainer: readTrainingTrainer(where, o.trainer ?? "gguf"),
    roles: roles as TrainingRole[],
    hyper: {
      learningRate: num("learningRate", 0),
      rank: int("rank", 1),
      alpha: num("alpha", 0),
      epochs: int("epochs", 1),
      clipLow: num("clipLow", 0, 1),
      clipHigh: num("clipHigh", 0),
      tisCap: num("tisCap", 0),
      klCoef: num("klCoef", 0),
      maxTokensPerBatch: int("maxTokensPerBatch", 1),
    },
    rewardScale: optional(o.rewardScale, (v) => readNumber(where, "training.rewardScale", v)) ?? 1,
    includeCanary: flag("includeCanary"),
    includeHinted: flag("includeHinted"),
    includeErrored: flag("includeErrored"),
    unloadModel: optional(o.unloadModel ?? undefined, (v) => readBoolean(where, "training.unloadModel", v)) ?? null,
    python: optional(o.python ?? undefined, (v) => readString(where, "training.python", v, { nonEmpty: true })) ?? null,
    timeoutMs: optional(o.timeoutMs ?? undefined, (v) => readInteger(where, "training.timeoutMs", v, 1)) ?? null,
    threads: optional(o.threads, (v) => readInteger(where, "training.threads", v, 0)) ?? 0,
    eval: optional(o.eval ?? undefined, (v) => readTrainingEval(where, v)) ?? null,
  };
}

function readTrainingEval(where: string, value: unknown): TrainingEvalConfig {
  const o = readObject(where, "training.eval", value, ["suite", "limit", "margin", "maxTokens"]);
  return {
    suite: readString(where, "training.eval.suite", o.suite, { nonEmpty: true }),
    limit: optional(o.limit ?? undefined, (v) => readInteger(where, "training.eval.limit", v, 1)) ?? null,
    margin: optional(o.margin, (v) => readNumber(where, "training.eval.margin", v, 0)) ?? 0,
    maxTokens: optional(o.maxTokens, (v) => readInteger(where, "training.eval.maxTokens", v, 1)) ?? 1024,
  };
}

function readTrainingTrainer(where: string, value: unknown): TrainingTrainer {
  if (typeof value === "string") {
    return { kind: readString(where, "training.trainer", value, { oneOf: ["gguf", "hf"] }) as "gguf" | "hf" };
  }
  if (typeof value === "object" && value !== null && "kind" in value) {
    // A parsed trainer read back (runs store their parsed config).
    const o = readObject(where, "training.trainer", value, ["kind", "command", "env", "cwd"]);
    const kind = readString(where, "training.trainer.kind", o.kind, { oneOf: ["gguf", "hf", "command"] });
    if (kind !== "command") return { kind: kind as "gguf" | "hf" };
  }
  const o = readObject(where, "training.trainer", value, ["kind", "command", "env", "cwd"]);
  if (o.command === undefined) throw new InputError(`${where}: training.trainer.command: required key is missing (an argv array of a program speaking the trainer line protocol)`);
  const env: Record<string, string> = {};
  if (o.env !== undefined) {
    const entries = readObject(where, "training.trainer.env", o.env, Object.keys(o.env as object));
    for (const [name, text] of Object.entries(entries)) env[name] = readString(where, `training.trainer.env.${name}`, text);
  }
  return {
    kind: "command",
    command: readStringArray(where, "training.trainer.command", o.command),
    env,
    cwd: optional(o.cwd ?? undefined, (v) => readString(where, "training.trainer.cwd", v, { nonEmpty: true })) ?? null,
  };
}
