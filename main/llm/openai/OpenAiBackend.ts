import type { OpenAiServerKind } from "../../../shared/backendConfig.js";
import type { ChatResult } from "../../../shared/llm.js";
import type { ChatRequest, LlmBackend } from "../LlmBackend.js";
import { PromptTooLongError } from "../PromptTooLongError.js";
import { Semaphore } from "../../util/Semaphore.js";
import { adjustmentFor, buildChatBody } from "./buildChatBody.js";
import { ChatReply } from "./ChatReply.js";
import { excerpt } from "./excerpt.js";
import type { OpenAiBackendOptions } from "./OpenAiBackendOptions.js";
import { OpenAiConnectionError } from "./OpenAiConnectionError.js";
import { httpPost, keepAliveAgents, type HttpReply } from "./httpPost.js";
import { OpenAiHttpError } from "./OpenAiHttpError.js";
import { OpenAiResponseError } from "./OpenAiResponseError.js";
import { OpenAiAdapterLoadError } from "./OpenAiAdapterLoadError.js";
import { detectServerKind } from "./OpenAiServerKind.js";
import { OpenAiTimeoutError } from "./OpenAiTimeoutError.js";
import { preflightTraining, type TrainingNeeds } from "./preflightTraining.js";
import { readSseEvents } from "./readSseEvents.js";
import { retryDelay } from "./retryDelay.js";

const defaults = { maxConcurrency: 4, timeoutMs: 300_000, maxRetries: 4, retryDelayMs: 500, stream: true, logprobs: true };

/** A retryable failure: 429/5xx (with the server's Retry-After) or a dropped connection. */
class Retryable {
  constructor(
    readonly cause: unknown,
    readonly retryAfter: string | null = null,
  ) {}
}

/**
 * Any OpenAI-compatible server (vLLM, SGLang, llama.cpp server, Ollama, LM Studio, hosted APIs):
 * `POST {baseUrl}/chat/completions`, streamed or not, with at most `maxConcurrency` requests in
 * flight, a time-out per request, and retries with exponential back-off on 429, 5xx and connection
 * errors. The request speaks the server's own fields (see buildChatBody: token ids on vLLM, the
 * adapter as SGLang selects it, the thinking switch); a field the server refuses with a 400 that
 * names it is left out from then on (`max_tokens` becomes `max_completion_tokens`), with a warning
 * saying what was dropped. Log-probs, token ids and tool calls are read when the server sends them.
 */
export class OpenAiBackend implements LlmBackend {
  readonly name: string;
  readonly parallelism: number;
  private currentAdapter: string | null;
  private readonly settings: typeof defaults;
  private readonly semaphore: Semaphore;
  private readonly disposal = new AbortController();
  /** Keep-alive connections for the chat and embedding calls. */
  private readonly agents = keepAliveAgents();
  private readonly baseUrl: string;
  private serverKind: Promise<OpenAiServerKind | null> | null = null;
  private readonly dropped = new Set<string>();
  private maxCompletionTokens = false;
  private readonly warn: (message: string) => void;

  constructor(private readonly options: OpenAiBackendOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.settings = { ...defaults, ...definedOnly(options) };
    this.parallelism = this.settings.maxConcurrency;
    this.currentAdapter = options.adapter ?? null;
    this.semaphore = new Semaphore(this.parallelism);
    this.name = `openai:${options.adapter ?? options.model}@${this.baseUrl}`;
    this.warn = options.onWarning ?? ((message) => process.emitWarning(message, "SpadeBackendWarning"));
    if (options.server) this.serverKind = Promise.resolve(options.server);
  }

  /** The adapter requests use (the configured one, or the last `loadAdapter`), or null for the base model. */
  get adapter(): string | null {
    return this.currentAdapter;
  }

  /** `parallelism` requests in flight against the server. */
  get layout(): string {
    return `${this.parallelism} requests in flight at ${this.baseUrl}`;
  }

  /** The server kind in use: the `server` setting, else what `GET /models` said (null: not recognised). */
  server(): Promise<OpenAiServerKind | null> {
    this.serverKind ??= detectServerKind(this.baseUrl, this.authHeaders(), AbortSignal.any([this.disposal.signal, AbortSignal.timeout(Math.min(10_000, this.settings.timeoutMs))]));
    return this.serverKind;
  }

  async chat(request: ChatRequest): Promise<ChatResult> {
    const { logprobs } = this.settings;
    const server = await this.server();
    // SGLang refuses return_prompt_token_ids with stream: true (serving_chat.py): its calls are whole replies.
    const stream = this.settings.stream && server !== "sglang";
    const url = this.url("/chat/completions");
    for (;;) {
      const { body, samplingUsed } = buildChatBody(request, {
        model: this.options.model,
        adapter: this.currentAdapter,
        server,
        stream,
        logprobs,
        dropped: this.dropped,
        maxCompletionTokens: this.maxCompletionTokens,
      });
      let latest = new ChatReply(url, samplingUsed);
      try {
        const routing = this.options.routingHeader && request.routingKey !== undefined ? { [this.options.routingHeader]: request.routingKey } : undefined;
        const outcome = await this.post("/chat/completions", body, request.signal, async (response) => {
          latest = new ChatReply(url, samplingUsed);
          if (stream && (response.header("content-type") ?? "").includes("text/event-stream")) {
            await readStream(response, latest);
          } else {
            latest.setCompletion(await readJson(response, url));
          }
          return latest.result();
        }, routing, request.priority);
        return outcome === "aborted" ? latest.result("abort") : outcome;
      } catch (error) {
        if (!(error instanceof OpenAiHttpError) || error.status !== 400) throw error;
        const tooLong = promptTooLong(error.bodyExcerpt);
        if (tooLong) throw tooLong;
        if (!this.adjust(error.bodyExcerpt, body)) throw error;
      }
    }
  }

  /**
   * Loads a LoRA adapter into the running server and uses it for later calls: vLLM's
   * `POST /v1/load_lora_adapter` (needs `VLLM_ALLOW_RUNTIME_LORA_UPDATING=True`) or SGLang's
   * `POST /load_lora_adapter`. `path` is a path on the server's machine. Other servers cannot:
   * OpenAiAdapterLoadError says so.
   */
  async loadAdapter(path: string, name: string): Promise<void> {
    const server = await this.server();
    if (server !== "vllm" && server !== "sglang") {
      throw new OpenAiAdapterLoadError(
        this.baseUrl,
        `${server ?? "this server (not recognised as vLLM or SGLang)"} cannot load a LoRA adapter at run time; serve it at start-up (vLLM --lora-modules, SGLang --lora-paths) and set backend.adapter, or set backend.server if this is vLLM or SGLang`,
      );
    }
    // Every replica must hold the adapter: a router may send any request to any of them.
    const targets = (this.options.replicas ?? [this.baseUrl]).map((base) => base.replace(/\/+$/, ""));
    await Promise.all(targets.map((base) => this.loadAdapterAt(base, server, path, name)));
    this.currentAdapter = name;
  }

  /**
   * Drops a run-time adapter from every replica (vLLM `POST /v1/unload_lora_adapter`, SGLang
   * `POST /unload_lora_adapter`), so a long run does not keep every round's adapter in the server's
   * memory. A replica that does not hold the name (vLLM 404 "cannot be found", SGLang 400 "does not
   * exist") is no error.
   */
  async unloadAdapter(name: string): Promise<void> {
    const server = await this.server();
    if (server !== "vllm" && server !== "sglang") return;
    const targets = (this.options.replicas ?? [this.baseUrl]).map((base) => base.replace(/\/+$/, ""));
    await Promise.all(
      targets.map(async (base) => {
        const url = `${server === "sglang" ? base.replace(/\/v1$/, "") : base}/unload_lora_adapter`;
        let response: Response;
        try {
          response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...this.authHeaders() }, body: JSON.stringify({ lora_name: name }), signal: AbortSignal.any([this.disposal.signal, AbortSignal.timeout(this.settings.timeoutMs)]) });
        } catch (error) {
          throw new OpenAiConnectionError(url, 1, error);
        }
        const text = await response.text().catch(() => "");
        if (!response.ok && response.status !== 404 && !(response.status === 400 && notHeld.test(text))) {
          throw new OpenAiAdapterLoadError(base, `unloading "${name}" failed with HTTP ${response.status} (${excerpt(text, 200)})`);
        }
      }),
    );
    if (this.currentAdapter === name) this.currentAdapter = this.options.adapter ?? null;
  }

  /**
   * Before rollout 0 of a training run: whether this server can serve it (preflightTraining), one
   * one-token request included. Throws ServerPreflightError naming each flag to set.
   */
  async preflightTraining(needs: TrainingNeeds): Promise<string> {
    const server = await this.server();
    const signal = AbortSignal.any([this.disposal.signal, AbortSignal.timeout(this.settings.timeoutMs)]);
    return preflightTraining(
      {
        baseUrl: this.baseUrl,
        replicas: (this.options.replicas ?? []).map((base) => base.replace(/\/+$/, "")),
        model: this.options.model,
        server,
        headers: this.authHeaders(),
        signal,
        chat: () => this.chat({ messages: [{ role: "user", content: "Hi" }], sampling: { maxTokens: 1, temperature: 1 }, signal }),
      },
      needs,
    );
  }

  private async loadAdapterAt(base: string, server: "vllm" | "sglang", path: string, name: string): Promise<void> {
    const root = server === "sglang" ? base.replace(/\/v1$/, "") : base;
    const url = `${root}/load_lora_adapter`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...this.authHeaders() },
        body: JSON.stringify({ lora_name: name, lora_path: path }),
        signal: AbortSignal.any([this.disposal.signal, AbortSignal.timeout(this.settings.timeoutMs)]),
      });
    } catch (error) {
      throw new OpenAiConnectionError(url, 1, error);
    }
    const text = await response.text().catch(() => "");
    if (!response.ok) {
      // The name is this workspace's alone (TrainingRound), so a server that holds it already holds this adapter: a resumed run goes on.
      if (response.status === 400 && alreadyLoaded.test(text)) return;
      throw new OpenAiAdapterLoadError(base, `loading ${path} as "${name}" failed with HTTP ${response.status} (${excerpt(text, 200)})${loadHint(server, response.status, text)}`);
    }
  }

  /** Changes the request after a 400 that names a field; false when there is nothing to change. */
  private adjust(message: string, body: Record<string, unknown>): boolean {
    const change = adjustmentFor(message, body);
    if (!change) return false;
    if ("rename" in change) {
      this.maxCompletionTokens = true;
      this.warn(`${this.name}: the server refused max_tokens; sending max_completion_tokens instead from now on`);
    } else {
      this.dropped.add(change.drop);
      this.warn(`${this.name}: the server refused "${change.drop}" (${excerpt(message, 160)}); requests leave it out from now on${change.drop === "logprobs" ? ", so plays carry no log-probs" : ""}`);
    }
    return true;
  }

  private authHeaders(): Record<string, string> {
    const headers: Record<string, string> = { ...this.options.headers };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    return headers;
  }

  /** An embedding from `POST {baseUrl}/embeddings` (model: `embeddingModel`, else the chat model). */
  async embed(text: string): Promise<number[]> {
    const url = this.url("/embeddings");
    const outcome = await this.post("/embeddings", { model: this.options.embeddingModel ?? this.options.model, input: text }, undefined, async (response) => {
      const body = (await readJson(response, url)) as { data?: Array<{ embedding?: unknown }> };
      const embedding = Array.isArray(body?.data) ? body.data[0]?.embedding : undefined;
      if (!Array.isArray(embedding) || !embedding.every((x) => typeof x === "number")) {
        throw new OpenAiResponseError(url, `expected data[0].embedding to be an array of numbers, got ${excerpt(JSON.stringify(body), 120)}`);
      }
      return embedding as number[];
    });
    if (outcome === "aborted") throw new OpenAiConnectionError(url, 0, new Error("the backend was disposed"));
    return outcome;
  }

  async dispose(): Promise<void> {
    this.disposal.abort();
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  /** One request with concurrency limit (waiting in line at `priority`), time-out and retries; "aborted" when the caller's signal (or dispose) fired. */
  private async post<T>(path: string, body: unknown, callerSignal: AbortSignal | undefined, read: (response: HttpReply) => Promise<T>, extraHeaders?: Record<string, string>, priority = 0): Promise<T | "aborted"> {
    const url = this.url(path);
    // A signal per call: waiters listen on it, and thousands of them must not pile up on one shared signal.
    const cancel = AbortSignal.any(callerSignal ? [callerSignal, this.disposal.signal] : [this.disposal.signal]);
    if (!(await this.semaphore.acquire(cancel, priority))) return "aborted";
    try {
      for (let attempt = 0; ; attempt++) {
        const timeout = AbortSignal.timeout(this.settings.timeoutMs);
        const signal = AbortSignal.any([cancel, timeout]);
        try {
          return await this.attempt(url, body, signal, read, extraHeaders);
        } catch (error) {
          if (cancel.aborted) return "aborted";
          if (timeout.aborted) throw new OpenAiTimeoutError(url, this.settings.timeoutMs);
          if (!(error instanceof Retryable)) throw error;
          if (attempt >= this.settings.maxRetries) {
            if (error.cause instanceof OpenAiHttpError) throw error.cause;
            throw new OpenAiConnectionError(url, attempt + 1, error.cause);
          }
          if (!(await sleep(retryDelay(attempt, this.settings.retryDelayMs, error.retryAfter), cancel))) return "aborted";
        }
      }
    } finally {
      this.semaphore.release();
    }
  }

  private async attempt<T>(url: string, body: unknown, signal: AbortSignal, read: (response: HttpReply) => Promise<T>, extraHeaders?: Record<string, string>): Promise<T> {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream", ...this.options.headers, ...extraHeaders };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    let response: HttpReply;
    try {
      response = await httpPost(url, headers, JSON.stringify(body), signal, this.agents);
    } catch (error) {
      throw new Retryable(error);
    }
    if (!response.ok) {
      const text = await response.text().catch(() => "");
      const error = new OpenAiHttpError(url, response.status, excerpt(text));
      if (response.status === 429 || response.status >= 500) throw new Retryable(error, response.header("retry-after"));
      throw error;
    }
    try {
      return await read(response);
    } catch (error) {
      if (error instanceof OpenAiResponseError || signal.aborted) throw error;
      throw new Retryable(error);
    }
  }
}

/** vLLM (serving_models.py): "The lora adapter '<name>' has already been loaded."; SGLang (lora_manager.py): "Failed to load LoRA adapter <name> because it is already loaded". */
const alreadyLoaded = /has already been loaded|because it is already loaded/;

/** SGLang (lora_registry.py `unregister`, returned by the tokenizer manager as a 400): "LoRA with name <name> does not exist. Loaded LoRAs: ...". */
const notHeld = /LoRA with name .* does not exist/;

/** The server flag a refused load needs, from the server's own message (see tests/support/fakeVllmServer.ts, fakeSglangServer.ts). */
function loadHint(server: "vllm" | "sglang", status: number, text: string): string {
  if (server === "vllm" && (status === 404 || status === 405) && /Not Found|Method Not Allowed/i.test(text)) {
    return ": the server does not allow run-time LoRA loading; start vLLM with VLLM_ALLOW_RUNTIME_LORA_UPDATING=True and --enable-lora";
  }
  if (/LoRA is not enabled/i.test(text)) return server === "vllm" ? ": start vLLM with --enable-lora (and --max-lora-rank at least the adapter's rank)" : ": start SGLang with --enable-lora --max-lora-rank <rank> --lora-target-modules all";
  const rank = /LoRA rank (\d+) is greater than max_lora_rank/.exec(text) ?? /with rank (\d+) is incompatible/.exec(text);
  if (rank) return server === "vllm" ? `: start vLLM with --max-lora-rank ${rank[1]} or more (it defaults to 16)` : `: start SGLang with --max-lora-rank ${rank[1]} or more and --lora-target-modules covering the adapter's (e.g. all)`;
  return "";
}

/**
 * A 400 saying the prompt exceeds the model's context (vLLM / OpenAI: "maximum context length is
 * M tokens ... N in the messages"; SGLang: "input (N tokens) is longer than the model's context
 * length (M tokens)"), as PromptTooLongError, so the loop records it as it does locally.
 */
function promptTooLong(message: string): PromptTooLongError | null {
  const limit = /maximum context length is (\d+) tokens/i.exec(message) ?? /context length \((\d+) tokens\)/i.exec(message);
  if (!limit) return null;
  const prompt = /\((\d+) in the messages/i.exec(message) ?? /(\d+) tokens in the messages/i.exec(message) ?? /input \((\d+) tokens\)/i.exec(message) ?? /requested (\d+) tokens/i.exec(message);
  return new PromptTooLongError(prompt ? Number(prompt[1]) : Number(limit[1]) + 1, Number(limit[1]));
}

async function readStream(response: HttpReply, reply: ChatReply): Promise<void> {
  let index = 0;
  for await (const data of readSseEvents(response.body)) {
    if (data.trim() === "[DONE]") return;
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw new OpenAiResponseError(response.url, `streamed event ${index} is not JSON: ${excerpt(data, 120)}`);
    }
    reply.addChunk(chunk, index++);
  }
  // Some servers end the stream without [DONE]; a stream cut before the finish reason is a dropped connection.
  if (!reply.finished) throw new Error("the stream ended before the reply finished");
}

async function readJson(response: HttpReply, url: string): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new OpenAiResponseError(url, `expected a JSON body, got ${excerpt(text, 120) || "an empty body"}`);
  }
}

function definedOnly(options: OpenAiBackendOptions): Partial<typeof defaults> {
  const picked: Partial<Record<keyof typeof defaults, number | boolean>> = {};
  for (const key of Object.keys(defaults) as Array<keyof typeof defaults>) {
    if (options[key] !== undefined) picked[key] = options[key];
  }
  return picked as Partial<typeof defaults>;
}

/** Waits `ms`; false if `signal` aborted first. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
