// Model-facing data shared by the engine and the UI: chat messages, sampling, results.

export type ChatRole = "system" | "user" | "assistant";

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** Sampling options for one call. Unset fields take the backend's defaults. */
export interface SamplingOptions {
  /** Defaults to 0.6 (SPADE's rollout temperature). */
  temperature?: number;
  topP?: number;
  topK?: number;
  minP?: number;
  /** Defaults to 1024. */
  maxTokens?: number;
  stop?: string[];
  seed?: number;
}

export type FinishReason = "stop" | "length" | "abort";

export interface ChatResult {
  /** The reply with any `<think>...</think>` reasoning removed. */
  text: string;
  /** The reasoning the model wrote inside `<think>`, or null when there was none. */
  reasoning: string | null;
  finishReason: FinishReason;
  promptTokens: number;
  completionTokens: number;
  /** Generated token ids, where the backend can give them. */
  tokenIds?: number[];
  /** Probability of each generated token, where the backend can give them. */
  tokenProbs?: number[];
}
