import { afterEach, describe, expect, it } from "vitest";
import { OpenAiBackend } from "../../main/llm/openai/OpenAiBackend.js";
import type { OpenAiBackendOptions } from "../../main/llm/openai/OpenAiBackendOptions.js";
import { OpenAiConnectionError } from "../../main/llm/openai/OpenAiConnectionError.js";
import { OpenAiHttpError } from "../../main/llm/openai/OpenAiHttpError.js";
import { OpenAiResponseError } from "../../main/llm/openai/OpenAiResponseError.js";
import { OpenAiTimeoutError } from "../../main/llm/openai/OpenAiTimeoutError.js";
import { completionBody, startFakeOpenAiServer, streamChunks, type FakeHandler, type FakeOpenAiServer } from "../support/fakeOpenAiServer.js";

const messages = [
  { role: "system" as const, content: "Play the game." },
  { role: "user" as const, content: "You see a door." },
];
let server: FakeOpenAiServer | undefined;
let backend: OpenAiBackend | undefined;

async function setup(handler: FakeHandler, options: Partial<OpenAiBackendOptions> = {}) {
  server = await startFakeOpenAiServer(handler);
  backend = new OpenAiBackend({ baseUrl: server.baseUrl, model: "qwen3-8b", retryDelayMs: 5, ...options });
  return { server, backend };
}

afterEach(async () => {
  await backend?.dispose();
  await server?.close();
  backend = server = undefined;
});

describe("OpenAiBackend requests and replies", () => {
  it("non-streaming: sends the OpenAI request and reads text, finish reason, usage and probabilities", async () => {
    const { server, backend } = await setup(() => ({ json: completionBody("\\boxed{open}", { logprobs: [-0.1, Math.log(0.5)], finishReason: "length" }) }), {
      stream: false,
      apiKey: "sk-test",
    });
    const result = await backend.chat({ messages, sampling: { temperature: 0.3, maxTokens: 50, topP: 0.9, topK: 20, minP: 0.05, stop: ["\n\n"], seed: 7 } });
    expect(result).toEqual({ text: "\\boxed{open}", reasoning: null, finishReason: "length", promptTokens: 11, completionTokens: 7, tokenProbs: [Math.exp(-0.1), 0.5] });
    const [request] = server.requests;
    expect(request!.path).toBe("/v1/chat/completions");
    expect(request!.headers.authorization).toBe("Bearer sk-test");
    expect(request!.body).toEqual({
      model: "qwen3-8b",
      messages,
      temperature: 0.3,
      max_tokens: 50,
      top_p: 0.9,
      top_k: 20,
      min_p: 0.05,
      stop: ["\n\n"],
      seed: 7,
      stream: false,
      logprobs: true,
    });
  });

  it("streaming: joins the deltas, reads reasoning_content, usage and per-token probabilities", async () => {
    const { server, backend } = await setup(() => ({
      events: streamChunks(["I will ", "\\boxed{", "open}"], { reasoningPieces: ["the door ", "is closed"], logprobs: [-1, -2, -3] }),
    }));
    const result = await backend.chat({ messages });
    expect(result).toEqual({
      text: "I will \\boxed{open}",
      reasoning: "the door is closed",
      finishReason: "stop",
      promptTokens: 11,
      completionTokens: 3,
      tokenProbs: [Math.exp(-1), Math.exp(-2), Math.exp(-3)],
    });
    expect(server.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true }, temperature: 0.6, max_tokens: 1024 });
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it("splits inline <think> reasoning and sends the adapter as the model name", async () => {
    const { server, backend } = await setup(() => ({ json: completionBody("<think>try the key</think>\\boxed{use key}") }), { stream: false, adapter: "env-lora-3" });
    const result = await backend.chat({ messages });
    expect(result.text).toBe("\\boxed{use key}");
    expect(result.reasoning).toBe("try the key");
    expect(server.requests[0]!.body.model).toBe("env-lora-3");
    expect(backend.adapter).toBe("env-lora-3");
    expect(backend.name).toBe(`openai:env-lora-3@${server.baseUrl}`);
  });

  it("embeds through /embeddings", async () => {
    const { server, backend } = await setup(() => ({ json: { data: [{ embedding: [0.1, 0.2, 0.3] }] } }), { embeddingModel: "bge-small" });
    expect(await backend.embed("a text")).toEqual([0.1, 0.2, 0.3]);
    expect(server.requests[0]).toMatchObject({ path: "/v1/embeddings", body: { model: "bge-small", input: "a text" } });
  });
});

describe("OpenAiBackend failures, retries and limits", () => {
  it("retries a 429 (honouring Retry-After) and a 503, then succeeds", async () => {
    const { server, backend } = await setup((_, index) =>
      index === 0
        ? { status: 429, headers: { "retry-after": "0" }, json: { error: { message: "slow down" } } }
        : index === 1
          ? { status: 503, text: "overloaded" }
          : { json: completionBody("ok") },
      { stream: false },
    );
    expect((await backend.chat({ messages })).text).toBe("ok");
    expect(server.requests).toHaveLength(3);
  });

  it("gives up after maxRetries with OpenAiHttpError carrying the status and body", async () => {
    const { server, backend } = await setup(() => ({ status: 500, text: "CUDA out of memory" }), { stream: false, maxRetries: 2 });
    const error = await backend.chat({ messages }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAiHttpError);
    expect(error).toMatchObject({ status: 500, bodyExcerpt: "CUDA out of memory" });
    expect((error as Error).message).toBe(`POST ${server.baseUrl}/chat/completions failed with HTTP 500: CUDA out of memory`);
    expect(server.requests).toHaveLength(3);
  });

  it("does not retry a 400", async () => {
    const { server, backend } = await setup(() => ({ status: 400, json: { error: { message: "unknown model qwen3-8b" } } }));
    await expect(backend.chat({ messages })).rejects.toThrow(/failed with HTTP 400: \{"error":\{"message":"unknown model qwen3-8b"\}\}/);
    expect(server.requests).toHaveLength(1);
  });

  it("times out a request that never answers, without retrying it", async () => {
    const { server, backend } = await setup(() => ({ hang: true }), { timeoutMs: 150 });
    const error = await backend.chat({ messages }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAiTimeoutError);
    expect((error as Error).message).toMatch(/did not complete within 150 ms/);
    expect(server.requests).toHaveLength(1);
  });

  it("refuses malformed bodies with OpenAiResponseError saying what was expected", async () => {
    const { backend } = await setup(
      (_, index) =>
        [{ text: "<html>502 Bad Gateway</html>" }, { json: { object: "chat.completion", choices: [] } }, { json: { choices: [{ message: { content: 42 } }] } }][index]!,
      { stream: false },
    );
    await expect(backend.chat({ messages })).rejects.toThrow(/expected a JSON body, got <html>502 Bad Gateway<\/html>/);
    await expect(backend.chat({ messages })).rejects.toThrow(/expected "choices" to be a non-empty array, got \[\]/);
    await expect(backend.chat({ messages })).rejects.toThrow(OpenAiResponseError);
  });

  it("refuses a streamed event that is not JSON, and an error event", async () => {
    const { backend } = await setup((_, index) => (index === 0 ? { events: ["{not json"] } : { events: [{ error: { message: "model crashed" } }] }));
    await expect(backend.chat({ messages })).rejects.toThrow(/streamed event 0 is not JSON: \{not json/);
    await expect(backend.chat({ messages })).rejects.toThrow(/the server sent an error: \{"message":"model crashed"\}/);
  });

  it("retries a dropped connection and a stream cut before its finish reason", async () => {
    const { server, backend } = await setup((_, index) =>
      index === 0 ? { drop: true } : index === 1 ? { events: streamChunks(["par"]).slice(0, 2), done: false } : { events: streamChunks(["full reply"]) },
    );
    expect((await backend.chat({ messages })).text).toBe("full reply");
    expect(server.requests).toHaveLength(3);
  });

  it("reports a server that cannot be reached with OpenAiConnectionError after the retries", async () => {
    const { server } = await setup(() => ({ json: {} }));
    const url = server.baseUrl;
    await server.close();
    const unreachable = new OpenAiBackend({ baseUrl: url, model: "m", maxRetries: 1, retryDelayMs: 1 });
    const error = await unreachable.chat({ messages }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAiConnectionError);
    expect((error as Error).message).toMatch(/connection failed after 2 attempt\(s\): fetch failed \(ECONNREFUSED\)/);
  });

  it("keeps at most maxConcurrency requests in flight", async () => {
    let inFlight = 0;
    let peak = 0;
    const { server, backend } = await setup(
      async () => {
        peak = Math.max(peak, ++inFlight);
        await new Promise((r) => setTimeout(r, 30));
        inFlight--;
        return { json: completionBody("ok") };
      },
      { maxConcurrency: 2, stream: false },
    );
    expect(backend.parallelism).toBe(2);
    const results = await Promise.all(Array.from({ length: 6 }, () => backend.chat({ messages })));
    expect(results.every((r) => r.text === "ok")).toBe(true);
    expect(server.requests).toHaveLength(6);
    expect(peak).toBe(2);
  });

  it("abort returns what streamed so far with finishReason abort", async () => {
    let served!: () => void;
    const firstChunkSent = new Promise<void>((resolve) => (served = resolve));
    const { backend } = await setup(() => {
      served();
      return { events: streamChunks(["one ", "two ", "three ", "four ", "five"]).slice(1), delayMs: 2000 }; // "one " first
    });
    const controller = new AbortController();
    const call = backend.chat({ messages, signal: controller.signal });
    // Abort once the first chunk is on its way and well before the second (2 s later), however busy the machine.
    await firstChunkSent;
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    const result = await call;
    expect(result.finishReason).toBe("abort");
    expect(result.text.startsWith("one ")).toBe(true);
    expect(result.text.length).toBeLessThan("one two three four five".length);
  });
});
