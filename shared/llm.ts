// Model-facing data shared by the engine and the UI: chat messages, sampling, results.

export type ChatRole = "system" | "user" | "assistant" | "tool";

/** One function call the model made (OpenAI `tool_calls` shape, arguments as the JSON text it wrote). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A tool offered to the model (OpenAI function-tool schema). */
export interface ToolSpec {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ChatMessage {
  role: ChatRole;
  content: string;
  /** Assistant messages: the calls it made, in order. */
  toolCalls?: ToolCall[];
  /** Tool messages: the call this result answers. */
  toolCallId?: string;
}

/** Whether a thinking model reasons before it answers. "auto": the model's own default. */
export type ThinkingMode = "off" | "on" | "auto";

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
  /**
   * Which function of the logits the reply's `tokenLogprobs` are (recorded with every call, so the
   * trainer compares like with like): "sampling" llama.cpp's sampling transform (top-k, top-p and
   * min-p, then temperature; the local backend), "raw" the full-vocabulary softmax of the
   * unprocessed logits at temperature 1 (vLLM V1's default `logprobs_mode = "raw_logprobs"`),
   * "tempered" the full-vocabulary softmax of logits / temperature (SGLang's sampler). Set by the
   * backend, never by a caller. Defaults to "sampling" where absent.
   */
  logprobs?: LogprobDefinition;
}

/** The functions a backend's behaviour log-probs can be (SamplingOptions.logprobs). */
export type LogprobDefinition = "sampling" | "raw" | "tempered";

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
  /**
   * Log-probability of each generated token under the distribution it was sampled from
   * (temperature, top-k/top-p applied), where the backend can give them. The behaviour
   * log-probs a GRPO trainer's importance ratio needs.
   */
  tokenLogprobs?: number[];
  /** The prompt's token ids exactly as the model evaluated them, where the backend can give them. */
  promptTokenIds?: number[];
  /** The sampling settings this call actually used (defaults filled in). */
  samplingUsed?: SamplingOptions;
  /** Function calls the model made (native tool calling). */
  toolCalls?: ToolCall[];
}
