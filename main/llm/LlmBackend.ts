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
  /** The same for every call of one episode, so a router can keep a conversation on one replica (`routingHeader`). Defaults to none. */
  routingKey?: string;
  /**
   * The call's place in line while every one of the backend's slots is taken: a higher priority is
   * served first, arrival order within one (a play's later turns go before new plays' first turns,
   * so open plays finish and free their sandboxes). Only the order of waiting calls changes, never
   * what a call sends. Defaults to 0.
   */
  priority?: number;
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
  /** Embeddings for novelty checks; absent when the backend cannot give them. */
  embed?(text: string): Promise<number[]>;
  /**
   * Tokens `messages` take as the model sees them (chat template applied); absent where the
   * backend cannot count (remote servers). Used to fit a prompt into `contextSize`.
   */
  countTokens?(messages: ChatMessage[], options?: { tools?: ToolSpec[]; thinking?: ThinkingMode }): Promise<number>;
  /** Tokens one call's prompt and reply may hold together; absent where unknown (remote servers). */
  readonly contextSize?: number;
  /** The context length the model was trained on (GGUF metadata); absent where unknown (remote servers). */
  readonly trainedContextSize?: number;
  /** How the backend runs calls in parallel, for the CLI and logs, e.g. `2 sequences x 4096 tokens in one context (batch 512), cuda, 4 threads`. */
  readonly layout?: string;
  /**
   * Loads a LoRA adapter (a path the backend can read: on a remote server, a path on its machine)
   * under `name` and uses it for later calls; absent where the backend cannot load adapters at run
   * time. Throws saying why when the server refuses.
   */
  loadAdapter?(path: string, name: string): Promise<void>;
  /** Drops an adapter `loadAdapter` loaded (a server keeps every loaded adapter until told); absent where the backend cannot. A name the backend does not hold is no error. */
  unloadAdapter?(name: string): Promise<void>;
  /** Switches LoRA adapters for later calls (calls running finish on the old ones); absent when the backend cannot. */
  setAdapters?(lora: LoraSpec[]): Promise<void>;
  /** The accelerator the model runs on as resolved at load ("cuda", "metal", "vulkan"), false on the CPU; absent where unknown (remote backends). */
  readonly gpu?: string | false;
  /** Frees the model from (GPU) memory after running calls finish, until `reload()`; absent for remote backends. */
  unload?(): Promise<void>;
  /** Loads the model again after `unload()`, with `lora` when given, else the adapters in use before. */
  reload?(lora?: LoraSpec[]): Promise<void>;
  dispose(): Promise<void>;
}
