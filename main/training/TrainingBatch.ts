import type { TrainingRole } from "../../shared/trainingConfig.js";

/**
 * One line of `batch.jsonl`, the token-exact training batch every trainer reads (README "Training
 * inside the run"): the full sequence (prompt tokens as evaluated + sampled completion tokens), the
 * mask of trained tokens, the behaviour log-prob of each trained token, the advantage, and where it
 * came from.
 */
export interface BatchLine {
  role: TrainingRole;
  tokens: number[];
  /** 1 = a sampled token that is trained. */
  mask: (0 | 1)[];
  /** The sampled token's log-prob under the behaviour policy where mask = 1, null elsewhere (null everywhere = unknown). */
  behaviorLogprobs: (number | null)[];
  advantage: number;
  ref: BatchRef;
  /** The adapter it was sampled with (null: the base model). */
  adapter: string | null;
  /** The sampling transform the behaviour log-probs are under (llama.cpp's meaning, or a server's own definition in `logprobs`); null: the plain softmax / unknown. */
  sampling: BatchSampling | null;
}

/** The settings that shape the sampling distribution (what a trainer applies to recompute the behaviour log-probs). */
export interface BatchSampling {
  temperature?: number;
  topK?: number;
  topP?: number;
  minP?: number;
  /**
   * The function the line's behaviour log-probs are, when not llama.cpp's sampling transform: "raw"
   * the full-vocabulary softmax at temperature 1 of the unprocessed logits (vLLM V1), "tempered"
   * the full-vocabulary softmax of logits / temperature (SGLang). Absent: the sampling transform.
   */
  logprobs?: "raw" | "tempered";
}

/**
 * Where a line came from; it identifies its sample: an agent sample is one play (`episodeId`, `turn`
 * null, on several lines only when its turns do not extend each other), a designer sample one call.
 */
export interface BatchRef {
  runId: number;
  environmentId: number;
  episodeId: number | null;
  turn: number | null;
  attempt: number | null;
  /** A copy made to fill a short batch (1, 2, ...: the reference's upsampling); absent on the sample itself. */
  copy?: number;
}

/** A row that could not be a batch line because its tokens were not recorded (export only, `spade export --format batch`). */
export interface UntokenisedRow {
  role: TrainingRole;
  tokens: null;
  mask: null;
  behaviorLogprobs: null;
  advantage: number;
  ref: BatchRef;
  adapter: string | null;
  sampling: null;
  /** Why: e.g. the OpenAI-compatible server gave no token ids. */
  missing: string;
}

/** What was left out of a batch, by reason (the header's "left out"). */
export interface LeftOutCounts {
  canary: number;
  hinted: number;
  /** Plays the infrastructure failed (step time-out, sandbox crash, backend error); a scored `step()` exception is trained. */
  errored: number;
  /** Plays or designer calls whose token ids were not recorded (a backend that gives none). */
  noTokens: number;
  /** Designer samples whose delayed reward is not scored yet. */
  unscored: number;
  /** Designer samples masked out of the designer's update (a negative blend reward, as the reference). */
  masked: number;
  /** Plays that did not terminate, within the step's batch: in their group's advantages and the divisor (`maskedSamples`), but no line (the compact filter masks all their tokens). */
  compactFiltered: number;
  /** Turns with a malformed tool call, kept in their play's context but not trained (`agent.maskMalformedToolCalls`). */
  malformedToolCalls: number;
  /** Agent samples past the step's batch size (`actorBatch`, designer samples first). */
  trimmed: number;
}

/** The first line of `batch.jsonl`. */
export interface BatchHeader {
  format: "spade-batch";
  version: 1;
  /** Samples per role (an agent sample is one play, on one line or one per turn; see `ref`). */
  roles: Record<TrainingRole, number>;
  "left out": LeftOutCounts;
  /**
   * Samples of the step with loss mask 0 and no line (compact-filtered plays within the batch): the
   * reference keeps them as samples, so they count in the per-sample mean's divisor. Absent: 0.
   */
  maskedSamples?: number;
  /** The step's global batch size (`actorBatch`): with a KL penalty the reference divides a shorter batch by it. Absent or null: none. */
  globalBatch?: number | null;
  /** Agent samples copied to fill a short batch (`ref.copy`). Absent: 0. */
  upsampled?: number;
}

export interface TrainingBatch {
  header: BatchHeader;
  lines: BatchLine[];
  /** Rows without tokens, kept only when asked for (export). */
  untokenised: UntokenisedRow[];
}

export function emptyLeftOut(): LeftOutCounts {
  return { canary: 0, hinted: 0, errored: 0, noTokens: 0, unscored: 0, masked: 0, compactFiltered: 0, malformedToolCalls: 0, trimmed: 0 };
}
