import type { OpenAiServerKind } from "../../../shared/backendConfig.js";
import type { ChatMessage, LogprobDefinition, SamplingOptions, ThinkingMode, ToolSpec } from "../../../shared/llm.js";

export interface ChatBodyOptions {
  model: string;
  adapter: string | null;
  /** null: not known (only fields every server accepts or ignores, plus the common extensions). */
  server: OpenAiServerKind | null;
  stream: boolean;
  logprobs: boolean;
  /** Fields this server refused earlier, left out from now on. */
  dropped: ReadonlySet<string>;
  /** The server refused `max_tokens` and wants `max_completion_tokens` (hosted reasoning models). */
  maxCompletionTokens: boolean;
}

export interface ChatBodyRequest {
  messages: ChatMessage[];
  sampling?: SamplingOptions;
  tools?: ToolSpec[];
  thinking?: ThinkingMode;
}

/** Fields the backend may leave out when a server refuses them (named in its 400 answer). */
export const droppableFields = [
  "temperature",
  "top_p",
  "top_k",
  "min_p",
  "seed",
  "logprobs",
  "return_token_ids",
  "return_prompt_token_ids",
  "return_meta_info",
  "return_tokens_as_token_ids",
  "chat_template_kwargs",
  "reasoning_effort",
  "stream_options",
] as const;

/**
 * The `POST /chat/completions` body for one call, shaped for the server:
 * - the adapter: the model name on vLLM (`--lora-modules` / `load_lora_adapter` serve it under its
 *   name), llama.cpp, Ollama and OpenAI; `lora_path` beside the base model on SGLang;
 * - token ids: vLLM is asked for `return_token_ids` (prompt and completion ids) and
 *   `return_tokens_as_token_ids` (log-prob entries named `token_id:<id>`); SGLang for
 *   `return_prompt_token_ids` and `return_token_ids` (both false by default, and refused with
 *   `stream: true`: sglang python/sglang/srt/entrypoints/openai/protocol.py ChatCompletionRequest,
 *   serving_chat.py `_convert_to_internal_request`) and `return_meta_info` (its
 *   `output_token_logprobs` name each token's id, for versions whose chat API has no
 *   `return_token_ids`);
 * - the log-prob definition the server's values follow goes into `samplingUsed.logprobs`: vLLM V1
 *   "raw" (vllm/v1/sample/sampler.py: `raw_logprobs` computed from the logits before penalties,
 *   temperature and top-k/top-p; the default `logprobs_mode`), SGLang "tempered"
 *   (python/sglang/srt/layers/sampler.py: `logits.div_(temperatures)`, softmax, log of the full
 *   vocabulary before top-k/top-p renormalisation; temperature 1 for greedy), llama.cpp's server "raw"
 *   (`post_sampling_probs` off: the softmax of the raw logits);
 * - thinking ("auto" sends nothing): `chat_template_kwargs.enable_thinking` on vLLM, SGLang,
 *   llama.cpp and unknown servers; `reasoning_effort` on OpenAI ("low" / "high") and Ollama
 *   ("none" / "high");
 * - `max_completion_tokens` instead of `max_tokens` on OpenAI and wherever `max_tokens` was refused;
 *   `top_k` / `min_p` are not sent to OpenAI (its API has neither);
 * - tools as OpenAI function tools; assistant tool calls as `tool_calls`, results as `role: "tool"`
 *   messages with `tool_call_id`.
 * Fields in `dropped` are left out. Returns the body and the sampling settings it carries.
 */
export function buildChatBody(request: ChatBodyRequest, options: ChatBodyOptions): { body: Record<string, unknown>; samplingUsed: SamplingOptions } {
  const { server, dropped } = options;
  const sampling = request.sampling ?? {};
  const body: Record<string, unknown> = {
    model: server === "sglang" || options.adapter === null ? options.model : options.adapter,
    messages: request.messages.map(toWire),
  };
  if (server === "sglang" && options.adapter !== null) body.lora_path = options.adapter;
  const samplingUsed: SamplingOptions = { maxTokens: sampling.maxTokens ?? 1024 };
  const put = (field: string, value: unknown, used?: () => void) => {
    if (value === undefined || dropped.has(field)) return;
    body[field] = value;
    used?.();
  };
  put("temperature", sampling.temperature ?? 0.6, () => (samplingUsed.temperature = sampling.temperature ?? 0.6));
  body[options.maxCompletionTokens || server === "openai" ? "max_completion_tokens" : "max_tokens"] = samplingUsed.maxTokens;
  put("top_p", sampling.topP, () => (samplingUsed.topP = sampling.topP));
  if (server !== "openai") {
    // Not in OpenAI's API, but vLLM, SGLang, llama.cpp's server and Ollama take them.
    put("top_k", sampling.topK, () => (samplingUsed.topK = sampling.topK));
    put("min_p", sampling.minP, () => (samplingUsed.minP = sampling.minP));
  }
  if (sampling.stop && sampling.stop.length > 0) put("stop", sampling.stop, () => (samplingUsed.stop = [...sampling.stop!]));
  put("seed", sampling.seed, () => (samplingUsed.seed = sampling.seed));
  body.stream = options.stream;
  if (options.stream) put("stream_options", { include_usage: true });
  if (options.logprobs) put("logprobs", true);
  if (server === "vllm") {
    put("return_token_ids", true);
    if (options.logprobs) put("return_tokens_as_token_ids", true);
  }
  if (server === "sglang") {
    put("return_prompt_token_ids", true);
    put("return_token_ids", true);
    if (options.logprobs) put("return_meta_info", true);
  }
  const definition = logprobDefinitionOf(server);
  if (options.logprobs && !dropped.has("logprobs") && definition) samplingUsed.logprobs = definition;
  const thinking = request.thinking ?? "auto";
  if (thinking !== "auto") {
    if (server === "openai") put("reasoning_effort", thinking === "on" ? "high" : "low");
    else if (server === "ollama") put("reasoning_effort", thinking === "on" ? "high" : "none");
    else put("chat_template_kwargs", { enable_thinking: thinking === "on" });
  }
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, ...(tool.description !== undefined ? { description: tool.description } : {}), parameters: tool.parameters },
    }));
  }
  return { body, samplingUsed };
}

/** The function a server's reported log-probs are (see buildChatBody); null where not known (the local default applies). */
export function logprobDefinitionOf(server: OpenAiServerKind | null): LogprobDefinition | null {
  // llama.cpp's server: `post_sampling_probs` off (its default, never sent here) reports get_token_probabilities, the
  // softmax of the raw logits over the whole vocabulary (tools/server/server.cpp populate_token_probs)
  if (server === "vllm" || server === "llama.cpp") return "raw";
  if (server === "sglang") return "tempered";
  return null;
}

function toWire(message: ChatMessage): Record<string, unknown> {
  if (message.role === "tool") return { role: "tool", content: message.content, tool_call_id: message.toolCallId };
  if (message.role === "assistant" && message.toolCalls && message.toolCalls.length > 0) {
    return {
      role: "assistant",
      content: message.content === "" ? null : message.content,
      tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } })),
    };
  }
  return { role: message.role, content: message.content };
}

/**
 * What to change after a 400 that names a field: `max_tokens` → `max_completion_tokens` when the
 * server asks for it; else leave out the first droppable field in the body that the message names.
 * null when the message names none (the error stands).
 */
export function adjustmentFor(message: string, body: Record<string, unknown>): { rename: "max_tokens" } | { drop: string } | null {
  if ("max_tokens" in body && /max_completion_tokens/.test(message) && /\bmax_tokens\b/.test(message)) return { rename: "max_tokens" };
  for (const field of droppableFields) {
    if (field in body && new RegExp(`\\b${field}\\b`).test(message)) return { drop: field };
  }
  return null;
}
