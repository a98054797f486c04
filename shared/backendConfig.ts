// Which model backend to use and how: the `backend` object of a run config, also edited in the UI.
import { fail, optional, readBoolean, readInteger, readNumber, readObject, readString } from "./validation/fields.js";

export type GpuChoice = "auto" | "cuda" | "metal" | "vulkan" | false;

/** A LoRA adapter applied when the context is created. */
export interface LoraSpec {
  /** Path of the adapter GGUF. Write each version to a new file name: llama.cpp caches adapters by path. */
  path: string;
  /** Defaults to 1. */
  scale?: number;
}

/** The serialisable settings of the local node-llama-cpp backend. */
export interface LlamaBackendSettings {
  /** Defaults to "auto" (CUDA, Metal or Vulkan when available, else CPU). */
  gpu?: GpuChoice;
  /** CPU threads for evaluation. Defaults to one fewer than the physical cores, at least 1 and at most 8 (llama.cpp collapses when its threads compete for cores). */
  threads?: number;
  /**
   * Tokens per sequence: a number, `"auto"` (node-llama-cpp sizes it from the model's training
   * context and the free (V)RAM for `sequences` sequences), or `{min, max}` (auto within bounds).
   * A prompt that does not fit is refused with PromptTooLongError. Defaults to "auto".
   */
  contextSize?: ContextSizeSetting;
  /** Flash attention (faster on most GPUs). Defaults to node-llama-cpp's "auto" (on where the model and hardware support it). */
  flashAttention?: boolean;
  /** Tokens evaluated per batch. Defaults to node-llama-cpp's choice (512, or less for small contexts). */
  batchSize?: number;
  /** Parallel sequences in one context (the backend's parallelism). Defaults to 1. */
  sequences?: number;
  /** Adapters applied at context creation. Defaults to none. */
  lora?: LoraSpec[];
  /** Where `hf:` and https model URIs are downloaded. Defaults to ~/.spade/models. */
  modelsDir?: string;
  /**
   * Keep each sequence's cached prompt between calls, so the next turn of an episode evaluates only
   * its new tokens (several times faster for long episodes). The cost: llama.cpp's sums depend on
   * batch shapes, so probabilities then differ in the last digits with what the sequence held before,
   * and a seeded sample can differ. false evaluates every prompt from scratch: one sequence with a
   * fixed seed then gives the same text every time. Defaults to true.
   */
  reusePrefix?: boolean;
  /** Let the chat template add its built-in tool-use instructions (Llama 3.1) when tools are offered. Defaults to false. */
  toolInstructions?: boolean;
}

export type ContextSizeSetting = number | "auto" | { min?: number; max?: number };

export interface LlamaBackendConfig extends LlamaBackendSettings {
  kind: "llama";
  /** A GGUF path, or a model URI (`hf:owner/repo/file.gguf`, `https://...`). */
  modelPath: string;
}

/** The OpenAI-compatible servers whose own request fields the backend speaks. */
export const openAiServerKinds = ["vllm", "sglang", "ollama", "llama.cpp", "openai"] as const;
export type OpenAiServerKind = (typeof openAiServerKinds)[number];

/** The serialisable settings of the OpenAI-compatible backend. */
export interface OpenAiBackendSettings {
  /**
   * Which server this is, for the fields only it understands (token ids, adapter selection,
   * thinking switch, run-time adapter loading). Defaults to auto-detection from `GET /models`
   * (`owned_by`); a server it cannot recognise gets the common fields only.
   */
  server?: OpenAiServerKind;
  /** Sent as a Bearer token. Defaults to none. */
  apiKey?: string;
  /** Name of an environment variable holding the API key (keeps secrets out of config files). Defaults to none. */
  apiKeyEnv?: string;
  /** A served LoRA adapter's name (vLLM `--lora-modules`, sent as the model name; SGLang `--lora-paths`, sent as `lora_path`). Defaults to none. */
  adapter?: string;
  /** Requests in flight at once (the backend's parallelism). Defaults to 4. */
  maxConcurrency?: number;
  /** Time-out of one request, including a streamed body. Defaults to 300000 ms. */
  timeoutMs?: number;
  /** Retries after 429, 5xx or a connection error. Defaults to 4. */
  maxRetries?: number;
  /** First back-off delay, doubled on each retry. Defaults to 500 ms. */
  retryDelayMs?: number;
  /** Stream the reply over server-sent events. Defaults to true. */
  stream?: boolean;
  /** Ask for per-token log-probabilities. Defaults to true. */
  logprobs?: boolean;
  /** Model name for `POST /embeddings`. Defaults to the chat model. */
  embeddingModel?: string;
}

export interface OpenAiBackendConfig extends OpenAiBackendSettings {
  kind: "openai";
  /** E.g. `http://127.0.0.1:8000/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  model: string;
}

export type BackendConfig = LlamaBackendConfig | OpenAiBackendConfig;

const llamaKeys = ["kind", "modelPath", "gpu", "threads", "contextSize", "flashAttention", "batchSize", "sequences", "lora", "modelsDir", "reusePrefix", "toolInstructions"];
const openAiKeys = ["kind", "baseUrl", "model", "server", "apiKey", "apiKeyEnv", "adapter", "maxConcurrency", "timeoutMs", "maxRetries", "retryDelayMs", "stream", "logprobs", "embeddingModel"];

/**
 * Reads a backend config from untrusted JSON. Unknown keys and wrong types are refused with an
 * InputError naming the key, e.g. `config.json: backend.threads: expected an integer >= 1, got "x"`.
 */
export function parseBackendConfig(value: unknown, where: string, path = "backend"): BackendConfig {
  const kind = readObject(where, path, value, [...new Set([...llamaKeys, ...openAiKeys])]).kind;
  if (kind !== "llama" && kind !== "openai") fail(where, `${path}.kind`, 'one of "llama", "openai"', kind);
  return kind === "llama" ? readLlama(where, path, value) : readOpenAi(where, path, value);
}

function readLlama(where: string, path: string, value: unknown): LlamaBackendConfig {
  const o = readObject(where, path, value, llamaKeys);
  const key = (name: string) => `${path}.${name}`;
  const config: LlamaBackendConfig = { kind: "llama", modelPath: readString(where, key("modelPath"), o.modelPath, { nonEmpty: true }) };
  if (o.gpu !== undefined) {
    if (o.gpu !== false && !["auto", "cuda", "metal", "vulkan"].includes(o.gpu as string)) fail(where, key("gpu"), '"auto", "cuda", "metal", "vulkan" or false', o.gpu);
    config.gpu = o.gpu as GpuChoice;
  }
  assign(config, "threads", optional(o.threads, (v) => readInteger(where, key("threads"), v, 1, 256)));
  assign(config, "contextSize", optional(o.contextSize, (v) => readContextSize(where, key("contextSize"), v)));
  assign(config, "flashAttention", optional(o.flashAttention, (v) => readBoolean(where, key("flashAttention"), v)));
  assign(config, "batchSize", optional(o.batchSize, (v) => readInteger(where, key("batchSize"), v, 1)));
  assign(config, "sequences", optional(o.sequences, (v) => readInteger(where, key("sequences"), v, 1, 1024)));
  assign(config, "reusePrefix", optional(o.reusePrefix, (v) => readBoolean(where, key("reusePrefix"), v)));
  assign(config, "toolInstructions", optional(o.toolInstructions, (v) => readBoolean(where, key("toolInstructions"), v)));
  assign(config, "modelsDir", optional(o.modelsDir, (v) => readString(where, key("modelsDir"), v, { nonEmpty: true })));
  if (o.lora !== undefined) {
    if (!Array.isArray(o.lora)) fail(where, key("lora"), "an array of {path, scale}", o.lora);
    config.lora = o.lora.map((item, i) => {
      const entry = readObject(where, key(`lora[${i}]`), item, ["path", "scale"]);
      const spec: LoraSpec = { path: readString(where, key(`lora[${i}].path`), entry.path, { nonEmpty: true }) };
      assign(spec, "scale", optional(entry.scale, (v) => readNumber(where, key(`lora[${i}].scale`), v)));
      return spec;
    });
  }
  return config;
}

function readOpenAi(where: string, path: string, value: unknown): OpenAiBackendConfig {
  const o = readObject(where, path, value, openAiKeys);
  const key = (name: string) => `${path}.${name}`;
  const baseUrl = readString(where, key("baseUrl"), o.baseUrl, { nonEmpty: true });
  if (!/^https?:\/\/[^/]/.test(baseUrl)) fail(where, key("baseUrl"), "an http:// or https:// URL", baseUrl);
  const config: OpenAiBackendConfig = { kind: "openai", baseUrl, model: readString(where, key("model"), o.model, { nonEmpty: true }) };
  if (o.server !== undefined) {
    if (!openAiServerKinds.includes(o.server as OpenAiServerKind)) fail(where, key("server"), openAiServerKinds.map((kind) => JSON.stringify(kind)).join(", "), o.server);
    config.server = o.server as OpenAiServerKind;
  }
  for (const name of ["apiKey", "apiKeyEnv", "adapter", "embeddingModel"] as const) {
    assign(config, name, optional(o[name], (v) => readString(where, key(name), v, { nonEmpty: true })));
  }
  assign(config, "maxConcurrency", optional(o.maxConcurrency, (v) => readInteger(where, key("maxConcurrency"), v, 1, 4096)));
  assign(config, "timeoutMs", optional(o.timeoutMs, (v) => readInteger(where, key("timeoutMs"), v, 1)));
  assign(config, "maxRetries", optional(o.maxRetries, (v) => readInteger(where, key("maxRetries"), v, 0, 100)));
  assign(config, "retryDelayMs", optional(o.retryDelayMs, (v) => readInteger(where, key("retryDelayMs"), v, 0)));
  assign(config, "stream", optional(o.stream, (v) => readBoolean(where, key("stream"), v)));
  assign(config, "logprobs", optional(o.logprobs, (v) => readBoolean(where, key("logprobs"), v)));
  return config;
}

function readContextSize(where: string, key: string, value: unknown): ContextSizeSetting {
  if (value === "auto") return value;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const o = readObject(where, key, value, ["min", "max"]);
    const bounds: { min?: number; max?: number } = {};
    assign(bounds, "min", optional(o.min, (v) => readInteger(where, `${key}.min`, v, 16)));
    assign(bounds, "max", optional(o.max, (v) => readInteger(where, `${key}.max`, v, 16)));
    if (bounds.min !== undefined && bounds.max !== undefined && bounds.min > bounds.max) fail(where, `${key}.min`, `at most max (${bounds.max})`, bounds.min);
    return bounds;
  }
  if (typeof value !== "number") fail(where, key, 'an integer >= 16, "auto" or {min, max}', value);
  return readInteger(where, key, value, 16);
}

function assign<T extends object, K extends keyof T>(target: T, name: K, value: T[K] | undefined): void {
  if (value !== undefined) target[name] = value;
}
