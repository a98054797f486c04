// The parts the scripted vLLM and SGLang servers share: an HTTP server on 127.0.0.1 (random port),
// JSON bodies, the script that generates a reply, and the adapters' PEFT config (rank, targets) read
// from the folder a load names, as both servers read it.
import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

/** One generated reply: the prompt as the server tokenised it, the sampled tokens and their log-probs (under the server's own definition). */
export interface ScriptedGeneration {
  text: string;
  promptTokenIds: number[];
  tokenIds: number[];
  logprobs: number[];
}

/** What the model does with one chat request (`adapter`: the LoRA it was asked for, or null). */
export type GenerationScript = (request: { messages: Array<{ role: string; content: string }>; adapter: string | null; temperature: number; body: Record<string, unknown> }) => ScriptedGeneration;

export interface RecordedRequest {
  method: string;
  path: string;
  body: Record<string, unknown>;
}

export type Route = (request: RecordedRequest) => { status: number; json?: unknown; text?: string; sse?: unknown[] };

export interface ScriptedServer {
  /** The server's root, e.g. `http://127.0.0.1:40123`. */
  root: string;
  /** Every request, in order. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startScriptedServer(route: Route): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    let body: Record<string, unknown>;
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ detail: "There was an error parsing the body" }));
      return;
    }
    const request = { method: req.method ?? "GET", path: (req.url ?? "").split("?")[0]!, body };
    requests.push(request);
    const reply = route(request);
    if (reply.sse) {
      res.writeHead(reply.status, { "content-type": "text/event-stream" });
      for (const event of reply.sse) res.write(`data: ${typeof event === "string" ? event : JSON.stringify(event)}\n\n`);
      res.end();
      return;
    }
    const isJson = reply.json !== undefined;
    res.writeHead(reply.status, { "content-type": isJson ? "application/json" : "text/plain" });
    res.end(isJson ? JSON.stringify(reply.json) : (reply.text ?? ""));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    root: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A PEFT adapter folder's `adapter_config.json` (rank `r`, `target_modules`), or null when the folder has none. */
export function readPeftConfig(path: string): { r: number; target_modules: string[] } | null {
  const file = join(path, "adapter_config.json");
  if (!existsSync(file)) return null;
  const config = JSON.parse(readFileSync(file, "utf8")) as { r?: number; target_modules?: string[] };
  return { r: config.r ?? 8, target_modules: config.target_modules ?? [] };
}

/** The chat messages of a request body, their content as text. */
export function messagesOf(body: Record<string, unknown>): Array<{ role: string; content: string }> {
  return ((body.messages as Array<{ role: string; content: unknown }>) ?? []).map((message) => ({ role: message.role, content: typeof message.content === "string" ? message.content : "" }));
}
