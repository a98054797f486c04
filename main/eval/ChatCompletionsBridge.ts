import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChatMessage, ToolCall, ToolSpec } from "../../shared/llm.js";
import type { LlmBackend } from "../llm/LlmBackend.js";
import { parseTextToolCalls } from "../rollout/toolCalls.js";

/** A loopback OpenAI-compatible `POST /v1/chat/completions` in front of the engine's backends, one per model name. */
export class ChatCompletionsBridge {
  private calls = 0;

  private constructor(
    private readonly server: Server,
    /** The base URL to give an OpenAI client, with `/v1`. */
    readonly baseUrl: string,
  ) {}

  /**
   * Serves each backend under its model name on 127.0.0.1 (a free port) until `close()`. A
   * request for an unknown model, or one that is not a chat completion, gets a 4xx with the reason;
   * a backend's failure a 500 with its message.
   */
  static async start(models: Record<string, LlmBackend>): Promise<ChatCompletionsBridge> {
    let bridge: ChatCompletionsBridge | null = null;
    const server = createServer((request, response) => void bridge!.answer(models, request, response));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    bridge = new ChatCompletionsBridge(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
    return bridge;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async answer(models: Record<string, LlmBackend>, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (request.method !== "POST" || !/\/chat\/completions\/?$/.test(request.url ?? "")) return send(404, { error: { message: `only POST /v1/chat/completions is served, not ${request.method} ${request.url}` } });
    let body: Record<string, unknown>;
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
    } catch (error) {
      return send(400, { error: { message: `the body is not JSON: ${(error as Error).message}` } });
    }
    const name = String(body.model ?? "").replace(/^openai\//, "");
    const backend = models[name];
    if (!backend) return send(404, { error: { message: `no model named ${JSON.stringify(name)} (served: ${Object.keys(models).join(", ")})` } });
    if (!Array.isArray(body.messages)) return send(400, { error: { message: "messages: expected a list of chat messages" } });
    if (body.stream === true) return send(400, { error: { message: "stream: only whole (non-streamed) completions are served" } });
    const call = this.calls++;
    try {
      const tools = Array.isArray(body.tools) ? (body.tools as Record<string, unknown>[]).map(toolSpec) : undefined;
      const reply = await backend.chat({
        messages: (body.messages as Record<string, unknown>[]).map(chatMessage),
        ...(tools && tools.length > 0 ? { tools } : {}),
        sampling: {
          ...(typeof body.temperature === "number" ? { temperature: body.temperature } : {}),
          ...(typeof body.top_p === "number" ? { topP: body.top_p } : {}),
          ...(typeof body.top_k === "number" ? { topK: body.top_k } : {}),
          ...(typeof body.max_tokens === "number" ? { maxTokens: body.max_tokens } : {}),
          ...(typeof body.seed === "number" ? { seed: body.seed } : {}),
        },
      });
      const made: ToolCall[] = reply.toolCalls && reply.toolCalls.length > 0 ? reply.toolCalls : tools ? parseTextToolCalls(reply.text, call) : [];
      const text = made.length > 0 && !reply.toolCalls?.length ? reply.text.replace(/<tool_call>[\s\S]*?<\/tool_call>/g, "").trim() : reply.text;
      send(200, {
        id: `spade-${call}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: name,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: text, ...(made.length > 0 ? { tool_calls: made.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })) } : {}) },
            finish_reason: made.length > 0 ? "tool_calls" : reply.finishReason === "length" ? "length" : "stop",
          },
        ],
        usage: { prompt_tokens: reply.promptTokens, completion_tokens: reply.completionTokens, total_tokens: reply.promptTokens + reply.completionTokens },
      });
    } catch (error) {
      send(500, { error: { message: (error as Error).message } });
    }
  }
}

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === "object" && part !== null && typeof (part as { text?: unknown }).text === "string" ? (part as { text: string }).text : "")).join("");
  return "";
}

function chatMessage(message: Record<string, unknown>): ChatMessage {
  const role = message.role === "system" || message.role === "assistant" || message.role === "tool" ? message.role : "user";
  const calls = Array.isArray(message.tool_calls)
    ? (message.tool_calls as Record<string, unknown>[]).map((c) => {
        const fn = (c.function ?? {}) as Record<string, unknown>;
        return { id: String(c.id ?? ""), name: String(fn.name ?? ""), arguments: typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments ?? {}) };
      })
    : [];
  return { role, content: text(message.content), ...(calls.length > 0 ? { toolCalls: calls } : {}), ...(role === "tool" && typeof message.tool_call_id === "string" ? { toolCallId: message.tool_call_id } : {}) };
}

function toolSpec(tool: Record<string, unknown>): ToolSpec {
  const fn = (tool.function ?? tool) as Record<string, unknown>;
  return { name: String(fn.name ?? ""), ...(typeof fn.description === "string" ? { description: fn.description } : {}), parameters: (fn.parameters as Record<string, unknown>) ?? { type: "object", properties: {} } };
}
