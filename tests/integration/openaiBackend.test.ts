import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { OpenAiBackend } from "../../main/llm/openai/OpenAiBackend.js";
import type { OpenAiBackendOptions } from "../../main/llm/openai/OpenAiBackendOptions.js";
import { PromptTooLongError } from "../../main/llm/PromptTooLongError.js";
import { OpenAiAdapterLoadError } from "../../main/llm/openai/OpenAiAdapterLoadError.js";
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
    expect(result).toEqual({
      text: "\\boxed{open}",
      reasoning: null,
      finishReason: "length",
      promptTokens: 11,
      completionTokens: 7,
      tokenProbs: [Math.exp(-0.1), 0.5],
      tokenLogprobs: [-0.1, Math.log(0.5)],
      samplingUsed: { temperature: 0.3, maxTokens: 50, topP: 0.9, topK: 20, minP: 0.05, stop: ["\n\n"], seed: 7 },
    });
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
      tokenLogprobs: [-1, -2, -3],
      samplingUsed: { temperature: 0.6, maxTokens: 1024 },
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
    expect((error as Error).message).toMatch(/connection failed after 2 attempt\(s\): connect ECONNREFUSED 127\.0\.0\.1:\d+/);
  });

  it("follows a 307 with the same POST, as fetch did, and keeps one connection open across requests", async () => {
    const seen: string[] = [];
    let connections = 0;
    const raw: Server = createServer(async (req, res) => {
      let body = "";
      for await (const chunk of req) body += String(chunk);
      seen.push(`${req.method} ${req.url} ${(JSON.parse(body) as { messages: Array<{ content: string }> }).messages[1]!.content}`);
      if (req.url === "/moved/v1/chat/completions") {
        res.writeHead(307, { location: "/v1/chat/completions" }).end();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(completionBody("\\boxed{open}")));
    });
    raw.on("connection", () => connections++);
    await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
    const root = `http://127.0.0.1:${(raw.address() as AddressInfo).port}`;
    const moved = new OpenAiBackend({ baseUrl: `${root}/moved/v1`, model: "m", stream: false, server: "vllm" });
    const direct = new OpenAiBackend({ baseUrl: `${root}/v1`, model: "m", stream: false, server: "vllm" });
    try {
      expect((await moved.chat({ messages })).text).toBe("\\boxed{open}");
      expect(seen).toEqual(["POST /moved/v1/chat/completions You see a door.", "POST /v1/chat/completions You see a door."]);
      const before = connections;
      for (let i = 0; i < 4; i++) expect((await direct.chat({ messages })).text).toBe("\\boxed{open}");
      expect(seen).toHaveLength(6);
      expect(connections - before).toBe(1);
    } finally {
      await moved.dispose();
      await direct.dispose();
      await new Promise((resolve) => raw.close(resolve));
    }
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

describe("OpenAiBackend speaks each server's own fields", () => {
  const tools = [{ name: "open_door", description: "Opens a door", parameters: { type: "object", properties: { door: { type: "string" } } } }];
  const models = (owner: string) => ({ object: "list", data: [{ id: "qwen3-8b", object: "model", owned_by: owner }] });
  const earlier: Array<{ server: FakeOpenAiServer; backend: OpenAiBackend }> = [];
  afterEach(async () => {
    for (const pair of earlier.splice(0)) {
      await pair.backend.dispose();
      await pair.server.close();
    }
  });
  async function setupWith(handler: FakeHandler, serverOptions: { models?: unknown } = {}, options: Partial<OpenAiBackendOptions> = {}) {
    if (server && backend) earlier.push({ server, backend });
    server = await startFakeOpenAiServer(handler, serverOptions);
    const warnings: string[] = [];
    backend = new OpenAiBackend({ baseUrl: server.baseUrl, model: "qwen3-8b", retryDelayMs: 5, stream: false, onWarning: (message) => warnings.push(message), ...options });
    return { server, backend, warnings };
  }

  it("vLLM (detected from /models): asks for token ids and log-probs, switches thinking off, offers tools, and reads ids and tool calls back", async () => {
    const { server, backend } = await setupWith(
      () => ({
        json: {
          id: "chatcmpl-1",
          object: "chat.completion",
          prompt_token_ids: [1, 2, 3, 4],
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: null, tool_calls: [{ id: "call_a", type: "function", function: { name: "open_door", arguments: '{"door":"red"}' } }] },
              finish_reason: "tool_calls",
              token_ids: [11, 12],
              logprobs: { content: [{ token: "token_id:11", logprob: -0.5 }, { token: "token_id:12", logprob: -0.25 }] },
            },
          ],
          usage: { prompt_tokens: 4, completion_tokens: 2 },
        },
      }),
      { models: models("vllm") },
    );
    const result = await backend.chat({ messages, sampling: { temperature: 0.6, topK: 20, maxTokens: 64 }, thinking: "off", tools });
    expect(server.requests[0]!.body).toEqual({
      model: "qwen3-8b",
      messages,
      temperature: 0.6,
      max_tokens: 64,
      top_k: 20,
      stream: false,
      logprobs: true,
      return_token_ids: true,
      return_tokens_as_token_ids: true,
      chat_template_kwargs: { enable_thinking: false },
      tools: [{ type: "function", function: { name: "open_door", description: "Opens a door", parameters: tools[0]!.parameters } }],
    });
    expect(result).toMatchObject({
      text: "",
      promptTokenIds: [1, 2, 3, 4],
      tokenIds: [11, 12],
      tokenLogprobs: [-0.5, -0.25],
      toolCalls: [{ id: "call_a", name: "open_door", arguments: '{"door":"red"}' }],
    });
    await backend.chat({ messages });
    expect(server.modelListRequests).toBe(1);
    expect(await backend.server()).toBe("vllm");
  });

  it("vLLM streamed: prompt ids in the first chunk, token ids and tool-call fragments in the deltas", async () => {
    const chunk = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ object: "chat.completion.chunk", choices: [{ index: 0, finish_reason: null, ...choice }], ...extra });
    const { backend } = await setupWith(
      () => ({
        events: [
          chunk({ delta: { role: "assistant", content: "" } }, { prompt_token_ids: [5, 6] }),
          chunk({ delta: { tool_calls: [{ index: 0, id: "call_z", type: "function", function: { name: "open_door", arguments: "" } }] }, token_ids: [21] }),
          chunk({ delta: { tool_calls: [{ index: 0, function: { arguments: '{"door":' } }] }, token_ids: [22] }),
          chunk({ delta: { tool_calls: [{ index: 0, function: { arguments: '"blue"}' } }] }, token_ids: [23] }),
          chunk({ delta: {}, finish_reason: "tool_calls" }),
        ],
      }),
      { models: models("vllm") },
      { stream: true },
    );
    const result = await backend.chat({ messages, tools });
    expect(result).toMatchObject({ promptTokenIds: [5, 6], tokenIds: [21, 22, 23], toolCalls: [{ id: "call_z", name: "open_door", arguments: '{"door":"blue"}' }] });
  });

  it("sends tool calls and tool results back in OpenAI's wire format", async () => {
    const { server, backend } = await setupWith(() => ({ json: completionBody("\\boxed{done}") }), {}, { server: "vllm" });
    await backend.chat({
      messages: [
        ...messages,
        { role: "assistant", content: "", toolCalls: [{ id: "call_a", name: "open_door", arguments: '{"door":"red"}' }] },
        { role: "tool", content: "The door opens.", toolCallId: "call_a" },
      ],
      tools,
    });
    expect(server.modelListRequests).toBe(0);
    expect((server.requests[0]!.body.messages as unknown[]).slice(2)).toEqual([
      { role: "assistant", content: null, tool_calls: [{ id: "call_a", type: "function", function: { name: "open_door", arguments: '{"door":"red"}' } }] },
      { role: "tool", content: "The door opens.", tool_call_id: "call_a" },
    ]);
  });

  it("SGLang: the adapter goes in lora_path beside the base model; thinking on via chat_template_kwargs", async () => {
    const { server, backend } = await setupWith(() => ({ json: completionBody("ok") }), { models: models("sglang") }, { adapter: "round-3" });
    await backend.chat({ messages, thinking: "on" });
    expect(server.requests[0]!.body).toEqual({
      model: "qwen3-8b",
      lora_path: "round-3",
      messages,
      temperature: 0.6,
      max_tokens: 1024,
      stream: false,
      logprobs: true,
      // SGLang returns token ids only when asked (protocol.py), and only in whole replies (serving_chat.py)
      return_prompt_token_ids: true,
      return_token_ids: true,
      return_meta_info: true,
      chat_template_kwargs: { enable_thinking: true },
    });
    expect(backend.adapter).toBe("round-3");
  });

  it("hosted OpenAI: max_completion_tokens, no top_k/min_p, reasoning_effort; refused temperature and logprobs are dropped with a warning", async () => {
    const { server, backend, warnings } = await setupWith(
      (request) => {
        if ("temperature" in request.body) return { status: 400, json: { error: { message: "Unsupported value: 'temperature' does not support 0.6 with this model. Only the default (1) value is supported." } } };
        if ("logprobs" in request.body) return { status: 400, json: { error: { message: "logprobs is not supported with this model" } } };
        return { json: completionBody("fine", { usage: { prompt_tokens: 3, completion_tokens: 1 } }) };
      },
      { models: models("system") },
      { model: "o4-mini" },
    );
    const result = await backend.chat({ messages, sampling: { temperature: 0.6, topK: 20, minP: 0.1, maxTokens: 32 }, thinking: "off" });
    expect(result.text).toBe("fine");
    expect(result.samplingUsed).toEqual({ maxTokens: 32 });
    expect(server.requests.map((request) => Object.keys(request.body).sort())).toEqual([
      ["logprobs", "max_completion_tokens", "messages", "model", "reasoning_effort", "stream", "temperature"],
      ["logprobs", "max_completion_tokens", "messages", "model", "reasoning_effort", "stream"],
      ["max_completion_tokens", "messages", "model", "reasoning_effort", "stream"],
    ]);
    expect(server.requests[2]!.body.reasoning_effort).toBe("low");
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/refused "temperature"/);
    expect(warnings[1]).toMatch(/refused "logprobs".*no log-probs/);
    await backend.chat({ messages });
    expect(server.requests).toHaveLength(4);
    expect(Object.keys(server.requests[3]!.body)).not.toContain("temperature");
  });

  it("a server that refuses max_tokens gets max_completion_tokens from then on; an unrelated 400 stands", async () => {
    const { server, backend, warnings } = await setupWith((request) =>
      "max_tokens" in request.body
        ? { status: 400, json: { error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead." } } }
        : { json: completionBody("ok") },
    );
    await backend.chat({ messages, sampling: { maxTokens: 7 } });
    expect(server.requests[1]!.body.max_completion_tokens).toBe(7);
    expect(warnings[0]).toMatch(/max_completion_tokens/);
    const other = await setupWith(() => ({ status: 400, json: { error: { message: "messages: too long" } } }));
    await expect(other.backend.chat({ messages })).rejects.toBeInstanceOf(OpenAiHttpError);
    expect(other.server.requests).toHaveLength(1);
  });

  it("a prompt the server's context cannot hold is a PromptTooLongError, as on the local backend", async () => {
    const { backend } = await setupWith(() => ({
      status: 400,
      json: { object: "error", message: "This model's maximum context length is 4096 tokens. However, you requested 5120 tokens (4096 in the messages, 1024 in the completion).", code: 400 },
    }));
    const error = await backend.chat({ messages }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PromptTooLongError);
    expect(error).toMatchObject({ promptTokens: 4096, contextSize: 4096 });
  });

  it("loadAdapter: vLLM's /v1/load_lora_adapter, then the adapter is the model name; a refusal says how to allow it", async () => {
    const { server, backend } = await setupWith((request) => (request.path.endsWith("load_lora_adapter") ? { json: {} } : { json: completionBody("ok") }), { models: models("vllm") });
    await backend.loadAdapter("/adapters/round-4.safetensors", "round-4");
    expect(server.requests[0]).toMatchObject({ path: "/v1/load_lora_adapter", body: { lora_name: "round-4", lora_path: "/adapters/round-4.safetensors" } });
    await backend.chat({ messages });
    expect(server.requests[1]!.body.model).toBe("round-4");
    expect(backend.adapter).toBe("round-4");
    const refused = await setupWith(() => ({ status: 404, json: { detail: "Not Found" } }), { models: models("vllm") });
    await expect(refused.backend.loadAdapter("/a", "a")).rejects.toThrow(/VLLM_ALLOW_RUNTIME_LORA_UPDATING=True/);
  });

  it("loadAdapter: SGLang's /load_lora_adapter at the server root; Ollama cannot, and says so", async () => {
    const sglang = await setupWith(() => ({ json: { success: true } }), {}, { server: "sglang" });
    await sglang.backend.loadAdapter("/adapters/r1", "r1");
    expect(sglang.server.requests[0]).toMatchObject({ path: "/load_lora_adapter", body: { lora_name: "r1", lora_path: "/adapters/r1" } });
    const ollama = await setupWith(() => ({ json: {} }), { models: models("library") });
    await expect(ollama.backend.loadAdapter("/a", "a")).rejects.toBeInstanceOf(OpenAiAdapterLoadError);
    await expect(ollama.backend.loadAdapter("/a", "a")).rejects.toThrow(/ollama cannot load a LoRA adapter at run time/);
  });
});

describe("several replicas behind one URL", () => {
  const servers: FakeOpenAiServer[] = [];
  let router: Server | undefined;
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
    await new Promise<void>((resolve) => (router ? router.close(() => resolve()) : resolve()));
    router = undefined;
  });

  /** Two scripted replicas, and a router on loopback that sends each chat request to one of them by a hash of its X-Session-ID (as session-affinity routing does). */
  async function replicas() {
    const reply: FakeHandler = (request) => (request.path.endsWith("load_lora_adapter") ? { json: {} } : { json: completionBody("I guess \\boxed{0123}") });
    const a = await startFakeOpenAiServer(reply);
    const b = await startFakeOpenAiServer(reply);
    servers.push(a, b);
    router = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const key = String(request.headers["x-session-id"] ?? "");
        const target = createHash("sha256").update(key).digest()[0]! % 2 === 0 ? a : b;
        void fetch(`${target.baseUrl}${request.url!.replace(/^\/v1/, "")}`, { method: request.method, headers: { "content-type": "application/json", "x-session-id": key }, body: Buffer.concat(chunks) })
          .then(async (answer) => {
            response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
            response.end(Buffer.from(await answer.arrayBuffer()));
          });
      });
    });
    await new Promise<void>((resolve) => router!.listen(0, "127.0.0.1", resolve));
    const routerUrl = `http://127.0.0.1:${(router.address() as AddressInfo).port}/v1`;
    return { a, b, routerUrl };
  }

  it("loadAdapter reaches every replica listed in `replicas`, and a refusing replica is named", async () => {
    const { a, b, routerUrl } = await replicas();
    backend = new OpenAiBackend({ baseUrl: routerUrl, model: "qwen3-8b", server: "vllm", replicas: [a.baseUrl, b.baseUrl], retryDelayMs: 5 });
    await backend.loadAdapter("/adapters/round-2", "round-2");
    for (const replica of [a, b]) expect(replica.requests).toEqual([expect.objectContaining({ path: "/v1/load_lora_adapter", body: { lora_name: "round-2", lora_path: "/adapters/round-2" } })]);
    expect(backend.adapter).toBe("round-2");
    const refusing = await startFakeOpenAiServer(() => ({ status: 500, json: { detail: "out of memory" } }));
    servers.push(refusing);
    const partial = new OpenAiBackend({ baseUrl: routerUrl, model: "qwen3-8b", server: "vllm", replicas: [a.baseUrl, refusing.baseUrl] });
    await expect(partial.loadAdapter("/adapters/round-3", "round-3")).rejects.toThrow(refusing.baseUrl);
    expect(partial.adapter).toBeNull();
  });

  it("every turn of an episode carries the episode's routing key, so the router keeps it on one replica", async () => {
    const { a, b, routerUrl } = await replicas();
    backend = new OpenAiBackend({ baseUrl: routerUrl, model: "qwen3-8b", server: "vllm", routingHeader: "X-Session-ID", stream: false, retryDelayMs: 5 });
    const { SandboxPool } = await import("../../main/sandbox/SandboxPool.js");
    const { playEpisode } = await import("../../main/rollout/playEpisode.js");
    const pool = await SandboxPool.create({ size: 1 });
    try {
      const code = readFileSync(fileURLToPath(new URL("../../resources/environments/code_breaker.py", import.meta.url)), "utf8");
      for (const [playIndex, seed] of [[0, 11], [1, 12], [2, 13], [3, 14]] as const) {
        const session = await pool.open(code);
        try {
          const episode = await playEpisode({ session, backend, seed, playIndex, maxTurns: 3 });
          expect(episode.error).toBeNull();
          expect(episode.turns).toHaveLength(3);
        } finally {
          await session.close();
        }
      }
    } finally {
      await pool.dispose();
    }
    const keysAt = (replica: FakeOpenAiServer) => replica.requests.map((request) => String(request.headers["x-session-id"]));
    const all = [...keysAt(a), ...keysAt(b)];
    expect(all).toHaveLength(12);
    const distinct = [...new Set(all)];
    expect(distinct).toHaveLength(4);
    for (const key of distinct) {
      // Each episode's three turns went to one replica only.
      expect([keysAt(a).filter((k) => k === key).length, keysAt(b).filter((k) => k === key).length].sort()).toEqual([0, 3]);
    }
  }, 240_000);
});
