// The trainer line protocol (resources/trainers/README.md): what the workbench writes to a trainer
// worker's stdin and the JSON lines it answers with. Every answer is checked before use.
import { z } from "zod";
import type { TrainingHyper } from "../../shared/trainingConfig.js";

/**
 * The `hyper` object of a train command; keys left out take the trainer's defaults
 * (resources/trainers/step/spade_grpo.py `DEFAULT_HYPER`, equal to shared/trainingConfig.ts `defaultTrainingHyper`).
 */
export interface TrainerHyper extends Partial<TrainingHyper> {
  seed?: number;
  /** Refuse to train above this mean |recomputed - recorded| behaviour log-prob (nats). */
  mismatchTolerance?: number;
  /** Projections that get a LoRA. */
  targets?: Array<"attn_q" | "attn_k" | "attn_v" | "attn_output" | "ffn_gate" | "ffn_up" | "ffn_down">;
}

export interface TrainCommand {
  type: "train";
  round: number;
  batch: string;
  baseModel: string;
  parentAdapter: string | null;
  output: string;
  hyper: TrainerHyper;
}

/** Asks for the memory model's prediction of the largest round (a micro-batch, or one sequence of `longest` tokens), checked against the free memory. */
export interface MemoryCommand {
  type: "memory";
  baseModel: string;
  hyper: TrainerHyper;
  /** The longest sequence a round can hold (the backend's context size). */
  longest: number;
}

export interface LogprobsCommand {
  type: "logprobs";
  batch: string;
  baseModel: string;
  adapter: string | null;
  output: string;
  /** The agreement check's verification mode: "llama-cpu" rounds as llama.cpp's CPU backend does, "llama-cpu-perturbed" the same after moving each rounded value by float noise (gguf trainer only); absent: the trainer's exact function. */
  rounding?: LlamaRounding;
}

/** A rounding of llama.cpp the gguf trainer can emulate in its forward pass (resources/trainers/model/spade_llama_rounding.py). */
export type LlamaRounding = "llama-cpu" | "llama-cpu-perturbed";

const finite = z.number().refine(Number.isFinite, "a finite number");
const round = z.number().int().nullable();

export const trainerMetricsSchema = z
  .object({
    loss: finite,
    meanRatio: finite,
    maxRatio: finite,
    clippedFraction: finite,
    kl: finite,
    gradNorm: finite,
    tokens: z.number().int().nonnegative(),
    seconds: finite,
  })
  .catchall(z.unknown());

export const trainerMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready"), trainer: z.string(), architecture: z.string().nullable() }),
  z.object({ type: z.literal("progress"), round: z.number().int(), step: z.number().int().nonnegative(), steps: z.number().int().nonnegative(), loss: finite }),
  z.object({ type: z.literal("mismatch"), meanAbsDiff: finite, maxAbsDiff: finite, tokens: z.number().int().nonnegative() }),
  z.object({ type: z.literal("metrics"), round: z.number().int(), metrics: trainerMetricsSchema }),
  z.object({ type: z.literal("adapter"), round: z.number().int(), path: z.string().min(1) }),
  z.object({
    type: z.literal("memory"),
    peakBytes: z.number().int().nonnegative(),
    freeBytes: z.number().int().nonnegative().nullable(),
    parts: z.object({ weights: z.number().nonnegative(), lora: z.number().nonnegative(), activations: z.number().nonnegative(), outputLayer: z.number().nonnegative(), outputKept: z.number().nonnegative() }),
  }),
  z.object({ type: z.literal("done"), round }),
  z.object({ type: z.literal("error"), round, message: z.string() }),
]);

export type TrainerMessage = z.infer<typeof trainerMessageSchema>;
export type TrainerMetrics = z.infer<typeof trainerMetricsSchema>;
export type TrainerMismatch = Extract<TrainerMessage, { type: "mismatch" }>;
export type TrainerProgress = Extract<TrainerMessage, { type: "progress" }>;
export type TrainerMemory = Extract<TrainerMessage, { type: "memory" }>;

const messageTypes = new Set(["ready", "progress", "mismatch", "metrics", "adapter", "memory", "done", "error"]);

/**
 * One stdout line: a protocol message, or null for log text (not a JSON object with a known
 * `type`). A line that claims a protocol type but does not have its fields throws, naming them.
 */
export function parseTrainerMessage(line: string): TrainerMessage | null {
  const text = line.trim();
  if (!text.startsWith("{")) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || !messageTypes.has((value as { type?: unknown }).type as string)) return null;
  const parsed = trainerMessageSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(line)"}: ${issue.message}`).join("; ");
    throw new TypeError(`malformed "${(value as { type: string }).type}" line (${issues}): ${text.slice(0, 200)}`);
  }
  return parsed.data;
}
