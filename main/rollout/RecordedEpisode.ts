import type { ChatMessage, SamplingOptions, ToolSpec } from "../../shared/llm.js";
import type { JsonObject } from "../../shared/environment.js";

/** One turn as the rollout engine records it, for training and replay. */
export interface RecordedTurn {
  index: number;
  /**
   * The prompt messages exactly as this turn sent them (the store keeps only what differs from the
   * plain continuation: previous prompt + reply + observation). Null when not recorded.
   */
  messages: ChatMessage[] | null;
  rawReply: string;
  reasoning: string | null;
  action: string;
  observation: string;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: JsonObject;
  tokenIds: number[] | null;
  tokenProbs: number[] | null;
  /** The prompt's token ids as evaluated, each sampled token's log-prob, the sampling used (local backend; null where not given). */
  promptTokenIds?: number[] | null;
  tokenLogprobs?: number[] | null;
  sampling?: SamplingOptions | null;
  latencyMs: number;
  promptTokens: number;
  completionTokens: number;
}

export interface RecordedEpisode {
  seed: number;
  hinted: boolean;
  playIndex: number;
  canary: boolean;
  /** The first observation as the agent saw it (with the hint when hinted). */
  firstObservation: string;
  resetInfo: JsonObject;
  /** The tools offered natively to the model on every turn of a tool-use play; null otherwise. */
  tools: ToolSpec[] | null;
  turns: RecordedTurn[];
  /** SPADE's episode rule: last reward clipped to [-1, 1] if terminated, else 0. */
  return: number;
  totalTokens: number;
  adapter: string | null;
  /** Set when the environment or the model failed; the episode ended there. */
  error: string | null;
  /** True when a `step()` (or `reset()`) exceeded its deadline: it costs the designer. */
  timedOut: boolean;
  startedAt: number;
  finishedAt: number;
}
