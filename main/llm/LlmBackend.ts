import type { LoraSpec } from "../../shared/backendConfig.js";
import type { ChatMessage, ChatResult, SamplingOptions, ThinkingMode, ToolSpec } from "../../shared/llm.js";

export interface ChatRequest {
  messages: ChatMessage[];
  sampling?: SamplingOptions;
  signal?: AbortSignal;
  /** Tools offered through the model's own chat template (local) or the `tools` field (remote). Defaults to none. */
  tools?: ToolSpec[];
  /** Thinking control for models that reason. Defaults to "auto" (the model's own default). */
  thinking?: ThinkingMode;
}

/**
 * One model, many calls in flight: the backend decides how to batch them (parallel sequences in
 * one llama.cpp context, or concurrent HTTP requests to an OpenAI-compatible server).
 */
export interface LlmBackend {
  /** A short description for logs and the UI, e.g. `llama:stories260K.gguf` or `openai:qwen3@http://...`. */
  readonly name: string;
  /** How many calls the backend runs at once; more are queued. */
  readonly parallelism: number;
  /** The adapter in use, or null; recorded with every episode. */
  readonly adapter: string | null;
  chat(request: ChatRequest): Promise<ChatResult>;
  /** Tokens of the model's context window, when the backend knows it (the loop fits prompts to it). Defaults to unknown. */
  readonly contextSize?: number;
  /** Tokens the messages take once rendered by the chat template; absent when the backend cannot count. */
  countTokens?(messages: ChatMessage[]): Promise<number>;
  /** Embeddings for novelty checks; absent when the backend cannot give them. */
  embed?(text: string): Promise<number[]>;
  /** Switches LoRA adapters for later calls (calls running finish on the old ones); absent when the backend cannot. */
  setAdapters?(lora: LoraSpec[]): Promise<void>;
  /** Frees the model from (GPU) memory after running calls finish, until `reload()`; absent for remote backends. */
  unload?(): Promise<void>;
  /** Loads the model again after `unload()`. */
  reload?(): Promise<void>;
  dispose(): Promise<void>;
}
