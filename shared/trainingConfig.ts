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
  | {
      kind: "gguf";
      /** Devices one round trains on, data-parallel under torchrun (resources/trainers/step/spade_distributed.py: each rank a share of every step's samples, the gradients summed: the same step as one process). Defaults to 1. */
      devices?: number;
    }
  /**
   * The Hugging Face trainer. Inside a run it needs the checkpoint the run's GGUF was converted from
   * (`baseModel`: a model folder or hub id) and llama.cpp's `convert_lora_to_gguf.py`
   * (`convertScript`), so that each round's PEFT adapter comes back as a GGUF LoRA.
   */
  | {
      kind: "hf";
      baseModel: string | null;
      convertScript: string | null;
      /** As the gguf trainer's `devices`. Defaults to 1. */
      devices?: number;
    }
  | { kind: "command"; command: string[]; env: Record<string, string>; cwd: string | null };

/** How the "gguf" trainer holds the base weights (`training.weights`). */
export const trainingWeights = ["quantized", "full"] as const;
export type TrainingWeights = (typeof trainingWeights)[number];

/**
 * GRPO hyperparameters of one round, passed to the trainer as `hyper`. These defaults are also the
 * built-in trainers' own (resources/trainers/step/spade_grpo.py `DEFAULT_HYPER`; a test keeps them equal).
 */
export interface TrainingHyper {
  /**
   * AdamW learning rate of the LoRA weights. LoRA is this project's deviation (the paper's runs fine-tune
   * every weight at 1e-6); the reference's own LoRA launchers (`cmd/tinker/<model>/train_spade_tinker.sh`)
   * train rank 32 at 1e-6, and so does this default. Defaults to 1e-6.
   */
  learningRate: number;
  /** LoRA rank. Defaults to 32 (the reference's Tinker path). */
  rank: number;
  /** LoRA alpha (scale = alpha / rank). Defaults to 32. */
  alpha: number;
  /** Passes over the round's batch. Defaults to 1 (the reference). */
  epochs: number;
  /** Samples per optimiser step (slime's global batch size); null: the whole batch, one step per round. Defaults to null (the reference). */
  samplesPerStep: number | null;
  /** Tokens per optimiser step (a second bound on the steps); null: none. Defaults to null (the reference). */
  maxTokensPerBatch: number | null;
  /** "sample": each sample's token mean, summed and divided by the step's sample count (slime); "token": the step's token mean. Defaults to "sample". */
  lossAggregation: "sample" | "token";
  /** "reference": the full-vocabulary softmax of logits / rolloutTemperature (slime); "sampling": llama.cpp's sampling transform of each line. Defaults to "reference". */
  logprobs: "reference" | "sampling";
  /** The gradient's log-probs are those of logits / this (slime's --rollout-temperature). Defaults to 1 (the SPADE launchers). */
  rolloutTemperature: number;
  /** Lower clip of the importance ratio, 1 - clipLow. Defaults to 0.2 (the reference). */
  clipLow: number;
  /** Upper clip of the importance ratio, 1 + clipHigh. Defaults to 0.28 (the reference). */
  clipHigh: number;
  /** Truncated importance sampling: the weight against the behaviour log-probs is capped here (no lower bound). Defaults to 2 (the reference). */
  tisCap: number;
  /** KL penalty to the base model, low-variance (k3) estimator. Defaults to 0 (the reference's games launchers; 0.005 for tool use). */
  klCoef: number;
  /** AdamW beta 1. Defaults to 0.9 (the reference). */
  adamBeta1: number;
  /** AdamW beta 2. Defaults to 0.98 (the reference). */
  adamBeta2: number;
  /** AdamW epsilon. Defaults to 1e-8 (the reference). */
  adamEps: number;
  /** AdamW (decoupled) weight decay. Defaults to 0.1 (the reference). */
  weightDecay: number;
  /** Gradient norm clip (0 = off). Defaults to 1 (the reference). */
  gradClip: number;
  /** Padded tokens per forward pass: micro-batches accumulate gradients, so this is memory, never the result. Defaults to 4096. */
  microBatchTokens: number;
  /** Positions whose output-layer logits exist at once (forward and backward): bounds the output layer's memory. Defaults to 512. */
  outputChunkTokens: number;
  /** Recompute each block's activations in the backward pass instead of keeping them (lower peak memory). Defaults to true. */
  checkpointing: boolean;
}

export interface TrainingConfig {
  /** Iterations between training rounds; 1 = after every iteration (on-policy, the reference). Defaults to 1. */
  every: number;
  trainer: TrainingTrainer;
  /** Which roles' samples each round trains on. Defaults to ["agent", "designer"]. */
  roles: TrainingRole[];
  hyper: TrainingHyper;
  /**
   * The tool-use launcher's compact filter (`--spade-compact-filter`): a play that did not terminate
   * (a turn limit, a reply cut off, a full context) counts in its group's advantages but trains no
   * token. Defaults to the recipe's (false games, true tool use).
   */
  compactFilter: boolean;
  /** Train on canary plays (the canary is one of its game's plays, as in the reference). Defaults to true. */
  includeCanary: boolean;
  /** Train on hinted plays (the hint is privileged information). Defaults to false (left out and counted). */
  includeHinted: boolean;
  /**
   * Train on plays the infrastructure failed (a step time-out, a sandbox crash, a backend error).
   * A `step()` exception scored -1 and a play cut off by the full context are trained either way.
   * Defaults to false (left out and counted).
   */
  includeErrored: boolean;
  /** Free the inference model while the trainer runs. Defaults to true whenever llama.cpp holds a GPU as resolved at load (`gpu` "auto" included), false on the CPU. */
  unloadModel: boolean | null;
  /** The Python interpreter of the built-in trainers. Defaults to SPADE_PYTHON, else ~/.spade-workbench/python, else a python3 on PATH that imports torch, else Debian's /usr/bin/python3. */
  python: string | null;
  /** The trainer is stopped after this long per round. Defaults to no limit. */
  timeoutMs: number | null;
  /** PyTorch CPU threads of the built-in trainers (0: PyTorch's own default). Defaults to 0. */
  threads: number;
  /**
   * How the "gguf" trainer holds the frozen base weights on its device: "quantized" keeps the GGUF's
   * bytes and dequantises each layer when it runs, in the forward and the backward pass (the QLoRA
   * way: a Q4_K_M 7B needs ~4.7 GB instead of ~15 GB); "full" keeps a dequantised copy (faster, where it fits).
   * Both compute the same log-probs. Defaults to "quantized".
   */
  weights: TrainingWeights;
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
  learningRate: 1e-6,
  rank: 32,
  alpha: 32,
  epochs: 1,
  samplesPerStep: null,
  maxTokensPerBatch: null,
  lossAggregation: "sample",
  logprobs: "reference",
  rolloutTemperature: 1,
  clipLow: 0.2,
  clipHigh: 0.28,
  tisCap: 2,
  klCoef: 0,
  adamBeta1: 0.9,
  adamBeta2: 0.98,
  adamEps: 1e-8,
  weightDecay: 0.1,
  gradClip: 1,
  microBatchTokens: 4096,
  outputChunkTokens: 512,
  checkpointing: true,
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
  samplesPerStep: int(1).nullish(),
  maxTokensPerBatch: int(1).nullish(),
  lossAggregation: oneOf(["sample", "token"]).optional(),
  logprobs: oneOf(["reference", "sampling"]).optional(),
  rolloutTemperature: num(0).optional(),
  clipLow: num(0, 1).optional(),
  clipHigh: num(0).optional(),
  tisCap: num(0).optional(),
  klCoef: num(0).optional(),
  adamBeta1: num(0, 1).optional(),
  adamBeta2: num(0, 1).optional(),
  adamEps: num(0).optional(),
  weightDecay: num(0).optional(),
  gradClip: num(0).optional(),
  microBatchTokens: int(1).optional(),
  outputChunkTokens: int(1).optional(),
  checkpointing: bool().optional(),
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
  devices: int(1, 1024).optional().describe("Devices one round trains on, data-parallel under torchrun. Defaults to 1."),
});

/** The `training` block of a run config, as written (parsed form included: it reads back as itself). */
export const trainingSchema = strict({
  every: int(1).optional().describe("Iterations between training rounds; 1 = after every iteration (on-policy). Defaults to 1."),
  trainer: z
    .union([oneOf(["gguf", "hf"]), commandTrainer, hfTrainer, strict({ kind: oneOf(["gguf", "hf"]), devices: int(1, 1024).optional() })])
    .optional()
    .describe('"gguf" (LoRA on the GGUF the run uses), "hf" or {kind: "hf", baseModel, convertScript} (transformers + PEFT), or {command, env?, cwd?}. Defaults to "gguf".'),
  roles: expecting(z.array(oneOf(trainingRoles)).min(1), "a non-empty array of roles").optional().describe('Which roles\' samples each round trains on. Defaults to ["agent", "designer"].'),
  hyper: strict(hyperShape).optional(),
  ...hyperShape,
  rewardScale: num().optional().describe("Ignored: the designer's advantage is the one stored when its reward is scored (reward.scale)."),
  compactFilter: bool().optional().describe("Plays that did not terminate stay in their group but train no token (the tool-use launcher's compact filter). Defaults to the recipe's."),
  includeCanary: bool().optional(),
  includeHinted: bool().optional(),
  includeErrored: bool().optional(),
  unloadModel: bool().nullish(),
  python: nonEmpty().nullish(),
  timeoutMs: int(1).nullish(),
  threads: int(0).optional(),
  weights: oneOf(trainingWeights).optional().describe('How the gguf trainer holds the base weights: "quantized" (GGUF bytes, dequantised per layer) or "full" (a dequantised copy). Defaults to "quantized".'),
  eval: evalBlockSchema.nullish(),
}).superRefine((block, context) => {
  if (block.roles && new Set(block.roles).size !== block.roles.length) addRuleIssue(context, ["roles"], `each role may appear once, got ${JSON.stringify(block.roles)}`);
  const both = block.hyper === undefined ? [] : hyperKeys.filter((key) => block[key] !== undefined);
  if (both.length > 0) addRuleIssue(context, [both[0]!], "give hyperparameters either flat or under training.hyper, not both");
  const given = block.hyper ?? block;
  for (const key of ["adamBeta1", "adamBeta2"] as const) {
    const value = given[key];
    if (value !== undefined && value >= 1) addRuleIssue(context, block.hyper ? ["hyper", key] : [key], `expected a number in [0, 1), got ${value}`);
  }
});

export type TrainingInput = z.input<typeof trainingSchema>;
type _TrainingReadsBack = Assert<TrainingConfig extends TrainingInput ? true : false>;

/** The evaluation block with its defaults. */
export function fillEvalBlock(block: z.output<typeof evalBlockSchema>): TrainingEvalConfig {
  return { suite: block.suite, limit: block.limit ?? null, margin: block.margin ?? 0, maxTokens: block.maxTokens ?? 1024 };
}

/** A recipe's own training defaults (e.g. the tool-use KL and compact filter). */
export interface RecipeTrainingDefaults {
  hyper: Partial<TrainingHyper>;
  compactFilter: boolean;
}

/** A checked `training` block with its defaults filled in. */
export function fillTrainingConfig(block: z.output<typeof trainingSchema>, recipe: RecipeTrainingDefaults = { hyper: {}, compactFilter: false }): TrainingConfig {
  const given = block.hyper ?? block;
  const defaults = { ...defaultTrainingHyper, ...recipe.hyper };
  const hyper = Object.fromEntries(hyperKeys.map((key) => [key, given[key] ?? defaults[key]])) as unknown as TrainingHyper;
  return {
    every: block.every ?? 1,
    trainer: fillTrainer(block.trainer),
    roles: block.roles ?? [...trainingRoles],
    hyper,
    compactFilter: block.compactFilter ?? recipe.compactFilter,
    includeCanary: block.includeCanary ?? true,
    includeHinted: block.includeHinted ?? false,
    includeErrored: block.includeErrored ?? false,
    unloadModel: block.unloadModel ?? null,
    python: block.python ?? null,
    timeoutMs: block.timeoutMs ?? null,
    threads: block.threads ?? 0,
    weights: block.weights ?? "quantized",
    eval: block.eval ? fillEvalBlock(block.eval) : null,
  };
}

function fillTrainer(trainer: z.output<typeof trainingSchema>["trainer"]): TrainingTrainer {
  if (trainer === undefined) return { kind: "gguf" };
  const kind = typeof trainer === "string" ? trainer : "command" in trainer ? "command" : trainer.kind;
  // devices only where given (> 1 or written): a parsed config reads back as itself
  const devices = typeof trainer === "object" && "devices" in trainer && trainer.devices !== undefined ? { devices: trainer.devices } : {};
  if (kind === "hf") {
    const given = typeof trainer === "object" && "baseModel" in trainer ? trainer : { baseModel: null, convertScript: null };
    return { kind: "hf", baseModel: given.baseModel ?? null, convertScript: given.convertScript ?? null, ...devices };
  }
  if (typeof trainer === "object" && "command" in trainer) return { kind: "command", command: trainer.command, env: trainer.env ?? {}, cwd: trainer.cwd ?? null };
  return { kind: "gguf", ...devices };
}

/**
 * Reads the `training` block of a run config. Unknown keys and wrong types are refused by key. A
 * parsed block reads back as itself (runs store their parsed config): hyperparameters are flat keys
 * or under `hyper`.
 */
export function parseTrainingConfig(where: string, value: unknown): TrainingConfig {
  return fillTrainingConfig(parseConfig(trainingSchema, value, where, "training"));
}
