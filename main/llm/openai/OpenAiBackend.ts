import type { ChatResult, SamplingOptions } from "../../../shared/llm.js";
import type { ChatRequest, LlmBackend } from "../LlmBackend.js";
import { Semaphore } from "../Semaphore.js";
import { ChatReply } from "./ChatReply.js";
import { excerpt } from "./excerpt.js";
import type { OpenAiBackendOptions } from "./OpenAiBackendOptions.js";
import { OpenAiConnectionError } from "./OpenAiConnectionError.js";
import { OpenAiHttpError } from "./OpenAiHttpError.js";
import { OpenAiResponseError } from "./OpenAiResponseError.js";
import { OpenAiTimeoutError } from "./OpenAiTimeoutError.js";
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
 * errors. Log-probabilities become per-token probabilities when the server returns them.
 */
export class OpenAiBackend implements LlmBackend {
  readonly name: string;
  readonly parallelism: number;
  readonly adapter: string | null;
  private readonly settings: typeof defaults;
  private readonly semaphore: Semaphore;
  private readonly disposal = new AbortController();
  private readonly baseUrl: string;

  constructor(private readonly options: OpenAiBackendOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.settings = { ...defaults, ...definedOnly(options) };
    this.parallelism = this.settings.maxConcurrency;
    this.adapter = options.adapter ?? null;
    this.semaphore = new Semaphore(this.parallelism);
    this.name = `openai:${options.adapter ?? options.model}@${this.baseUrl}`;
  }

  async chat(request: ChatRequest): Promise<ChatResult> {
    const { stream, logprobs } = this.settings;
    const body: Record<string, unknown> = {
      model: this.options.adapter ?? this.options.model,
      messages: request.messages.map(({ role, content }) => ({ role, content })),
      ...samplingFields(request.sampling ?? {}),
      stream,
    };
    if (stream) body.stream_options = { include_usage: true };
    if (logprobs) body.logprobs = true;
    let latest = new ChatReply(this.url("/chat/completions"));
    const outcome = await this.post("/chat/completions", body, request.signal, async (response) => {
      latest = new ChatReply(this.url("/chat/completions"));
      if (stream && (response.headers.get("content-type") ?? "").includes("text/event-stream")) {
        await readStream(response, latest);
      } else {
        latest.setCompletion(await readJson(response, this.url("/chat/completions")));
      }
      return latest.result();
    });
    return outcome === "aborted" ? latest.result("abort") : outcome;
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
  }

  private url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  /** One request with concurrency limit, time-out and retries; "aborted" when the caller's signal (or dispose) fired. */
  private async post<T>(path: string, body: unknown, callerSignal: AbortSignal | undefined, read: (response: Response) => Promise<T>): Promise<T | "aborted"> {
    const url = this.url(path);
    // A signal per call: waiters listen on it, and thousands of them must not pile up on one shared signal.
    const cancel = AbortSignal.any(callerSignal ? [callerSignal, this.disposal.signal] : [this.disposal.signal]);
    if (!(await this.semaphore.acquire(cancel))) return "aborted";
    try {
      for (let attempt = 0; ; attempt++) {
        const timeout = AbortSignal.timeout(this.settings.timeoutMs);
        const signal = AbortSignal.any([cancel, timeout]);
        try {
          return await this.attempt(url, body, signal, read);
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

  private async attempt<T>(url: string, body: unknown, signal: AbortSignal, read: (response: Response) => Promise<T>): Promise<T> {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream", ...this.options.headers };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    let response: Response;
    try {
      response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal });
    } catch (error) {
      throw new Retryable(error);
    }
    if (!response.ok) {
      const text = await response.text().catch(() => "");
      const error = new OpenAiHttpError(url, response.status, excerpt(text));
      if (response.status === 429 || response.status >= 500) throw new Retryable(error, response.headers.get("retry-after"));
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

async function readStream(response: Response, reply: ChatReply): Promise<void> {
  if (!response.body) throw new Error("the streamed response has no body");
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

async function readJson(response: Response, url: string): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new OpenAiResponseError(url, `expected a JSON body, got ${excerpt(text, 120) || "an empty body"}`);
  }
}

function samplingFields(sampling: SamplingOptions): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    temperature: sampling.temperature ?? 0.6,
    max_tokens: sampling.maxTokens ?? 1024,
  };
  if (sampling.topP !== undefined) fields.top_p = sampling.topP;
  // top_k and min_p are not in OpenAI's API but vLLM, SGLang, llama.cpp server and Ollama accept them.
  if (sampling.topK !== undefined) fields.top_k = sampling.topK;
  if (sampling.minP !== undefined) fields.min_p = sampling.minP;
  if (sampling.stop && sampling.stop.length > 0) fields.stop = sampling.stop;
  if (sampling.seed !== undefined) fields.seed = sampling.seed;
  return fields;
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
