// Which model backend to use and how: the `backend` object of a run config, also edited in the UI.
import * as z from "zod";
import { addRuleIssue, bool, expecting, int, num, oneOf, parseConfig, strict, text, type Assert, type Same } from "./validation/schema.js";

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
  /**
   * Base URLs of every replica behind `baseUrl` (a router such as SGLang's model gateway, or a
   * load balancer over several vLLM servers): run-time adapter loads go to each of them, as the
   * router would send a chat request to any. Defaults to none (loads go to `baseUrl`).
   */
  replicas?: string[];
  /**
   * An HTTP header every chat request carries with a key per episode (e.g. `X-Session-ID` for a
   * router with session-affinity or consistent-hash routing on that header), so a conversation's
   * turns reach the replica that holds its prefix in cache. Defaults to none.
   */
  routingHeader?: string;
}

export interface OpenAiBackendConfig extends OpenAiBackendSettings {
  kind: "openai";
  /** E.g. `http://127.0.0.1:8000/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  model: string;
}

export type BackendConfig = LlamaBackendConfig | OpenAiBackendConfig;

const contextSizeBounds = strict({ min: int(16).optional(), max: int(16).optional() }).superRefine((bounds, context) => {
  if (bounds.min !== undefined && bounds.max !== undefined && bounds.min > bounds.max) addRuleIssue(context, ["min"], `expected at most max (${bounds.max}), got ${bounds.min}`);
});
const contextSize = expecting(z.union([int(16), z.literal("auto"), contextSizeBounds]), 'an integer >= 16, "auto" or {min, max}');
const nonEmpty = () => text({ nonEmpty: true });

/** The `backend` object with `kind: "llama"`, as written and as parsed. */
export const llamaBackendSchema = strict({
  kind: z.literal("llama"),
  modelPath: nonEmpty().describe("A GGUF path, or a model URI (hf:owner/repo/file.gguf, https://...)."),
  gpu: expecting(z.union([z.enum(["auto", "cuda", "metal", "vulkan"]), z.literal(false)]), '"auto", "cuda", "metal", "vulkan" or false').optional(),
  threads: int(1, 256).optional(),
  contextSize: contextSize.optional(),
  flashAttention: bool().optional(),
  batchSize: int(1).optional(),
  sequences: int(1, 1024).optional(),
  lora: expecting(z.array(strict({ path: nonEmpty(), scale: num().optional() })), "an array of {path, scale}").optional(),
  modelsDir: nonEmpty().optional(),
  reusePrefix: bool().optional(),
  toolInstructions: bool().optional(),
});

/** The `backend` object with `kind: "openai"`, as written and as parsed. */
export const openAiBackendSchema = strict({
  kind: z.literal("openai"),
  baseUrl: expecting(nonEmpty().regex(/^https?:\/\/[^/]/), "an http:// or https:// URL").describe("E.g. http://127.0.0.1:8000/v1; /chat/completions is appended."),
  model: nonEmpty(),
  server: oneOf(openAiServerKinds).optional(),
  apiKey: nonEmpty().optional(),
  apiKeyEnv: nonEmpty().optional(),
  adapter: nonEmpty().optional(),
  maxConcurrency: int(1, 4096).optional(),
  timeoutMs: int(1).optional(),
  maxRetries: int(0, 100).optional(),
  retryDelayMs: int(0).optional(),
  stream: bool().optional(),
  logprobs: bool().optional(),
  embeddingModel: nonEmpty().optional(),
  replicas: expecting(z.array(expecting(nonEmpty().regex(/^https?:\/\/[^/]/), "an http:// or https:// URL")).min(1), "a non-empty array of replica base URLs").optional(),
  routingHeader: expecting(nonEmpty().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/), "an HTTP header name").optional(),
});

/** The `backend` object of a run config. */
export const backendSchema = z.discriminatedUnion("kind", [llamaBackendSchema, openAiBackendSchema]);

type _LlamaMatches = Assert<Same<z.output<typeof llamaBackendSchema>, LlamaBackendConfig>>;
type _OpenAiMatches = Assert<Same<z.output<typeof openAiBackendSchema>, OpenAiBackendConfig>>;

/**
 * Reads a backend config from untrusted JSON. Unknown keys and wrong types are refused with an
 * InputError naming the key, e.g. `config.json: backend.threads: expected an integer >= 1, got "x"`.
 * `path` names where the object sits in its file.
 */
export function parseBackendConfig(value: unknown, where: string, path = "backend"): BackendConfig {
  return withoutUndefined(parseConfig(backendSchema, value, where, path));
}

/** A copy without keys whose value is undefined (a parsed config equals its JSON round trip). */
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}
