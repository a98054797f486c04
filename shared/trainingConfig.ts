import * as z from "zod";
import { addRuleIssue, bool, expecting, int, num, oneOf, parseConfig, strict, text, textList, textRecord, type Assert } from "./validation/schema.js";

/** The roles a training round can train (one shared policy plays both). */
export const trainingRoles = ["agent", "designer"] as const;
export type TrainingRole = (typeof trainingRoles)[number];

/**
 * The trainer a round runs: the built-in `"gguf"` trainer (LoRA straight on the GGUF the run
 * uses), the Hugging Face `"hf"` trainer (transformers + PEFT), or any program speaking the same
 * line protocol (see README "Training inside the run").
 */
export type TrainingTrainer =
  | { kind: "gguf" }
  /**
   * The Hugging Face trainer. Inside a run it needs the checkpoint the run's GGUF was converted from
   * (`baseModel`: a model folder or hub id) and llama.cpp's `convert_lora_to_gguf.py`
   * (`convertScript`), so that each round's PEFT adapter comes back as a GGUF LoRA.
   */
  | { kind: "hf"; baseModel: string | null; convertScript: string | null }
  | { kind: "command"; command: string[]; env: Record<string, string>; cwd: string | null };

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
  /** Free the inference model while the trainer runs. Defaults to true whenever llama.cpp holds a GPU as resolved at load (`gpu` "auto" included), false on the CPU. */
  unloadModel: boolean | null;
  /** The Python interpreter of the built-in trainers. Defaults to SPADE_PYTHON, else ~/.spade-workbench/python, else a python3 on PATH that imports torch, else Debian's /usr/bin/python3. */
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

const nonEmpty = () => text({ nonEmpty: true });

/** The held-out evaluation block (`training.eval`, also `trainer.eval`), as written. */
export const evalBlockSchema = strict({
  suite: nonEmpty().describe("A JSONL question suite or a folder of .py environments."),
  limit: int(1).nullish().describe("Questions (or environments) used. Defaults to all."),
  margin: num(0).optional().describe("The adapter is used unless its score is below the one in use by more than this. Defaults to 0."),
  maxTokens: int(1).optional().describe("Generation budget per question. Defaults to 1024."),
});

/** The hyperparameters, under `hyper` or as flat keys of `training`. */
const hyperShape = {
  learningRate: num(0).optional(),
  rank: int(1).optional(),
  alpha: num(0).optional(),
  epochs: int(1).optional(),
  clipLow: num(0, 1).optional(),
  clipHigh: num(0).optional(),
  tisCap: num(0).optional(),
  klCoef: num(0).optional(),
  maxTokensPerBatch: int(1).optional(),
};
const hyperKeys = Object.keys(hyperShape) as (keyof TrainingHyper)[];

const commandTrainer = strict({
  kind: expecting(z.literal("command"), '"command" (or "gguf" or "hf" with no other keys)').optional(),
  command: textList().describe("The argv of a program speaking the trainer line protocol."),
  env: textRecord().optional(),
  cwd: nonEmpty().nullish(),
});

const hfTrainer = strict({
  kind: expecting(z.literal("hf"), '"hf"'),
  baseModel: nonEmpty().nullish().describe("The Hugging Face checkpoint (folder or hub id) the run's GGUF was converted from."),
  convertScript: nonEmpty().nullish().describe("llama.cpp's convert_lora_to_gguf.py, which turns each round's PEFT adapter into a GGUF LoRA."),
});

/** The `training` block of a run config, as written (parsed form included: it reads back as itself). */
export const trainingSchema = strict({
  every: int(1).describe("Iterations between training rounds; 1 = after every iteration (on-policy)."),
  trainer: z
    .union([oneOf(["gguf", "hf"]), commandTrainer, hfTrainer, strict({ kind: oneOf(["gguf", "hf"]) })])
    .optional()
    .describe('"gguf" (LoRA on the GGUF the run uses), "hf" or {kind: "hf", baseModel, convertScript} (transformers + PEFT), or {command, env?, cwd?}. Defaults to "gguf".'),
  roles: expecting(z.array(oneOf(trainingRoles)).min(1), "a non-empty array of roles").optional().describe('Which roles\' samples each round trains on. Defaults to ["agent", "designer"].'),
  hyper: strict(hyperShape).optional(),
  ...hyperShape,
  rewardScale: num().optional(),
  includeCanary: bool().optional(),
  includeHinted: bool().optional(),
  includeErrored: bool().optional(),
  unloadModel: bool().nullish(),
  python: nonEmpty().nullish(),
  timeoutMs: int(1).nullish(),
  threads: int(0).optional(),
  eval: evalBlockSchema.nullish(),
}).superRefine((block, context) => {
  if (block.roles && new Set(block.roles).size !== block.roles.length) addRuleIssue(context, ["roles"], `each role may appear once, got ${JSON.stringify(block.roles)}`);
  const both = block.hyper === undefined ? [] : hyperKeys.filter((key) => block[key] !== undefined);
  if (both.length > 0) addRuleIssue(context, [both[0]!], "give hyperparameters either flat or under training.hyper, not both");
});

export type TrainingInput = z.input<typeof trainingSchema>;
type _TrainingReadsBack = Assert<TrainingConfig extends TrainingInput ? true : false>;

/** The evaluation block with its defaults. */
export function fillEvalBlock(block: z.output<typeof evalBlockSchema>): TrainingEvalConfig {
  return { suite: block.suite, limit: block.limit ?? null, margin: block.margin ?? 0, maxTokens: block.maxTokens ?? 1024 };
}

/** A checked `training` block with its defaults filled in. */
export function fillTrainingConfig(block: z.output<typeof trainingSchema>): TrainingConfig {
  const given = block.hyper ?? block;
  const hyper = Object.fromEntries(hyperKeys.map((key) => [key, given[key] ?? defaultTrainingHyper[key]])) as unknown as TrainingHyper;
  return {
    every: block.every,
    trainer: fillTrainer(block.trainer),
    roles: block.roles ?? [...trainingRoles],
    hyper,
    rewardScale: block.rewardScale ?? 1,
    includeCanary: block.includeCanary ?? false,
    includeHinted: block.includeHinted ?? false,
    includeErrored: block.includeErrored ?? false,
    unloadModel: block.unloadModel ?? null,
    python: block.python ?? null,
    timeoutMs: block.timeoutMs ?? null,
    threads: block.threads ?? 0,
    eval: block.eval ? fillEvalBlock(block.eval) : null,
  };
}

function fillTrainer(trainer: z.output<typeof trainingSchema>["trainer"]): TrainingTrainer {
  if (trainer === undefined) return { kind: "gguf" };
  const kind = typeof trainer === "string" ? trainer : "command" in trainer ? "command" : trainer.kind;
  if (kind === "hf") {
    const given = typeof trainer === "object" && "baseModel" in trainer ? trainer : { baseModel: null, convertScript: null };
    return { kind: "hf", baseModel: given.baseModel ?? null, convertScript: given.convertScript ?? null };
  }
  if (typeof trainer === "object" && "command" in trainer) return { kind: "command", command: trainer.command, env: trainer.env ?? {}, cwd: trainer.cwd ?? null };
  return { kind: "gguf" };
}

/**
 * Reads the `training` block of a run config. Unknown keys and wrong types are refused by key. A
 * parsed block reads back as itself (runs store their parsed config): hyperparameters are flat keys
 * or under `hyper`.
 */
export function parseTrainingConfig(where: string, value: unknown): TrainingConfig {
  return fillTrainingConfig(parseConfig(trainingSchema, value, where, "training"));
}
