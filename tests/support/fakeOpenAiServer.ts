// An OpenAI-compatible server on 127.0.0.1 (random port) whose replies a test scripts per request.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** What the server does with one request. */
export type FakeReply =
  /** A JSON body (status 200 unless given). */
  | { status?: number; headers?: Record<string, string>; json: unknown }
  /** A raw body, e.g. something that is not JSON. */
  | { status?: number; headers?: Record<string, string>; text: string }
  /** Server-sent events: objects are sent as JSON, strings as they are; `[DONE]` ends the stream unless `done` is false. */
  | { events: Array<unknown>; delayMs?: number; done?: boolean }
  /** Never answers (for time-outs). */
  | { hang: true }
  /** Drops the connection without answering. */
  | { drop: true };

export type FakeHandler = (request: FakeRequest, index: number) => FakeReply | Promise<FakeReply>;

export interface FakeServerOptions {
  /** The body of `GET /v1/models` (what the backend detects the server kind from). Defaults to a 404, as a server without the list. */
  models?: unknown;
}

export interface FakeOpenAiServer {
  /** E.g. `http://127.0.0.1:40123/v1`. */
  baseUrl: string;
  /** Every request but `GET /v1/models`. */
  requests: FakeRequest[];
  /** How many times `GET /v1/models` was asked. */
  modelListRequests: number;
  close(): Promise<void>;
}

export async function startFakeOpenAiServer(handler: FakeHandler, options: FakeServerOptions = {}): Promise<FakeOpenAiServer> {
  const requests: FakeRequest[] = [];
  const state = { modelListRequests: 0 };
  const server = createServer(async (req, res) => {
    if (req.method === "GET" && req.url === "/v1/models") {
      state.modelListRequests++;
      await send(res, options.models === undefined ? { status: 404, json: { error: "not found" } } : { json: options.models });
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const request: FakeRequest = { path: req.url ?? "", headers: req.headers, body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {} };
    requests.push(request);
    const reply = await handler(request, requests.length - 1);
    await send(res, reply);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get modelListRequests() {
      return state.modelListRequests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function send(res: ServerResponse, reply: FakeReply): Promise<void> {
  if ("hang" in reply) return;
  if ("drop" in reply) {
    res.socket?.destroy();
    return;
  }
  if ("events" in reply) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    for (const event of reply.events) {
      res.write(`data: ${typeof event === "string" ? event : JSON.stringify(event)}\n\n`);
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (res.destroyed) return;
    }
    if (reply.done !== false) res.write("data: [DONE]\n\n");
    res.end();
    return;
  }
  const body = "json" in reply ? JSON.stringify(reply.json) : reply.text;
  res.writeHead(reply.status ?? 200, { "content-type": "json" in reply ? "application/json" : "text/plain", ...reply.headers });
  res.end(body);
}

export interface CompletionOptions {
  /** Defaults to "stop". */
  finishReason?: string;
  reasoningContent?: string;
  /** Log-probabilities of the generated tokens. */
  logprobs?: number[];
  /** Defaults to { prompt_tokens: 11, completion_tokens: 7 }. */
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
}

/** A non-streamed `chat.completion` body. */
export function completionBody(content: string, options: CompletionOptions = {}): unknown {
  const message: Record<string, unknown> = { role: "assistant", content };
  if (options.reasoningContent !== undefined) message.reasoning_content = options.reasoningContent;
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    choices: [
      {
        index: 0,
        message,
        finish_reason: options.finishReason ?? "stop",
        logprobs: options.logprobs ? { content: options.logprobs.map((logprob, i) => ({ token: `t${i}`, logprob, bytes: [], top_logprobs: [] })) } : null,
      },
    ],
    usage: options.usage === undefined ? { prompt_tokens: 11, completion_tokens: 7 } : options.usage,
  };
}

/** The `chat.completion.chunk` events of a streamed reply: one per piece, then the finish reason, then usage. */
export function streamChunks(pieces: string[], options: CompletionOptions & { reasoningPieces?: string[] } = {}): unknown[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, logprob?: number) => ({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: logprob === undefined ? null : { content: [{ token: "t", logprob, bytes: [], top_logprobs: [] }] } }],
  });
  return [
    chunk({ role: "assistant", content: "" }),
    ...(options.reasoningPieces ?? []).map((piece) => chunk({ reasoning_content: piece })),
    ...pieces.map((piece, i) => chunk({ content: piece }, null, options.logprobs?.[i])),
    chunk({}, options.finishReason ?? "stop"),
    { id: "chatcmpl-1", object: "chat.completion.chunk", choices: [], usage: options.usage === undefined ? { prompt_tokens: 11, completion_tokens: pieces.length } : options.usage },
  ];
}
