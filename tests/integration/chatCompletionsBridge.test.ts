// The engine's loopback OpenAI-compatible endpoint (tau2's way in): OpenAI messages, tools and
// sampling reach the backend in the engine's form, native and text tool calls come back as
// `tool_calls`, and what it cannot serve is a 4xx that says why.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScriptedBackend } from "../../main/bench/ScriptedBackend.js";
import { ChatCompletionsBridge } from "../../main/eval/ChatCompletionsBridge.js";

const agent = new ScriptedBackend((request) => (request.messages.at(-1)!.role === "tool" ? "Refunded." : '<tool_call>{"name": "refund", "arguments": {"order_id": "A1"}}</tool_call>'), 1);
let bridge: ChatCompletionsBridge;
beforeAll(async () => {
  bridge = await ChatCompletionsBridge.start({ agent });
});
afterAll(() => bridge?.close());

const post = async (body: unknown, path = "/chat/completions") => {
  const response = await fetch(bridge.baseUrl + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
};
const tools = [{ type: "function", function: { name: "refund", description: "Refund an order.", parameters: { type: "object", properties: { order_id: { type: "string" } } } } }];

describe("the loopback chat-completions endpoint", () => {
  it("turns a text tool call into tool_calls and passes tools and sampling to the backend", async () => {
    const first = await post({ model: "openai/agent", messages: [{ role: "system", content: "Policy." }, { role: "user", content: [{ type: "text", text: "Refund A1" }] }], tools, temperature: 0, top_p: 0.8, top_k: 20, max_tokens: 64 });
    expect(first.status).toBe(200);
    const choice = (first.json.choices as Array<{ message: Record<string, unknown>; finish_reason: string }>)[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message).toMatchObject({ role: "assistant", content: "", tool_calls: [{ type: "function", function: { name: "refund", arguments: JSON.stringify({ order_id: "A1" }) } }] });
    expect(agent.calls[0]).toMatchObject({ messages: [{ role: "system", content: "Policy." }, { role: "user", content: "Refund A1" }], tools: [{ name: "refund", description: "Refund an order." }], sampling: { temperature: 0, topP: 0.8, topK: 20, maxTokens: 64 } });

    const id = (choice.message.tool_calls as Array<{ id: string }>)[0]!.id;
    const second = await post({ model: "agent", messages: [{ role: "user", content: "Refund A1" }, choice.message, { role: "tool", tool_call_id: id, content: "ok" }], tools });
    expect((second.json.choices as Array<{ message: { content: string }; finish_reason: string }>)[0]).toMatchObject({ message: { content: "Refunded." }, finish_reason: "stop" });
    expect(agent.calls[1]!.messages.slice(1)).toEqual([
      { role: "assistant", content: "", toolCalls: [{ id, name: "refund", arguments: JSON.stringify({ order_id: "A1" }) }] },
      { role: "tool", content: "ok", toolCallId: id },
    ]);
  });

  it("refuses an unknown model, a streamed request and other routes, saying why", async () => {
    expect(await post({ model: "gpt-4.1", messages: [] })).toEqual({ status: 404, json: { error: { message: 'no model named "gpt-4.1" (served: agent)' } } });
    expect((await post({ model: "agent", messages: [], stream: true })).json).toEqual({ error: { message: "stream: only whole (non-streamed) completions are served" } });
    expect((await post({ model: "agent" }, "/embeddings")).status).toBe(404);
  });
});
