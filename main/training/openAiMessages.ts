import type { ChatMessage, ChatRole, ToolCall, ToolSpec } from "../../shared/llm.js";

/** A tool call in the OpenAI chat format: arguments as a JSON string. */
export interface OpenAiToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A chat message in the OpenAI format, as TRL, ART and chat templates read it. */
export interface OpenAiMessage {
  role: ChatRole;
  content: string;
  /** Assistant messages that called tools. */
  tool_calls?: OpenAiToolCall[];
  /** Tool messages: the call this result answers. */
  tool_call_id?: string;
}

/** A tool offered to the model, in the OpenAI format. */
export interface OpenAiTool {
  type: "function";
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

export function toOpenAiToolCall(call: ToolCall): OpenAiToolCall {
  return { id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } };
}

/** The workbench's message (`toolCalls`, `toolCallId`) in the OpenAI format (`tool_calls`, `tool_call_id`). */
export function toOpenAiMessage(message: ChatMessage): OpenAiMessage {
  const converted: OpenAiMessage = { role: message.role, content: message.content };
  if (message.toolCalls && message.toolCalls.length > 0) converted.tool_calls = message.toolCalls.map(toOpenAiToolCall);
  if (message.toolCallId !== undefined) converted.tool_call_id = message.toolCallId;
  return converted;
}

export function toOpenAiTools(tools: readonly ToolSpec[]): OpenAiTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, ...(tool.description === undefined ? {} : { description: tool.description }), parameters: tool.parameters ?? { type: "object", properties: {} } },
  }));
}
