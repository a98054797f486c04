import type { OpenAiMessage } from "./openAiMessages.js";

/** A tool call as TRL's datasets hold it: `arguments` an object, not a JSON string (TRL docs/source/dataset_formats.md, "Tool Calling"). */
export interface TrlToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: Record<string, unknown> | string };
}

/** A chat message of a TRL conversational dataset; a tool message also names its tool. */
export interface TrlMessage extends Omit<OpenAiMessage, "tool_calls"> {
  tool_calls?: TrlToolCall[];
  /** Tool messages: the tool that answered (TRL's example carries it). */
  name?: string;
}

/**
 * OpenAI messages as TRL reads them: each tool call's `arguments` parsed into an object, since
 * TRL's chat templates render it with `tojson` (trl/chat_templates/qwen2_5.jinja) or iterate it
 * with `items` (llama3_1.jinja), so a JSON string would be encoded twice; a string that is not a
 * JSON object is kept as it is. A tool message gets the `name` of the call it answers.
 */
export function toTrlMessages(messages: readonly OpenAiMessage[]): TrlMessage[] {
  const names = new Map<string, string>();
  return messages.map((message) => {
    const { tool_calls: calls, ...rest } = message;
    const converted: TrlMessage = { ...rest };
    if (calls) {
      converted.tool_calls = calls.map((call) => {
        names.set(call.id, call.function.name);
        return { ...call, function: { name: call.function.name, arguments: argumentObject(call.function.arguments) } };
      });
    }
    if (message.role === "tool" && message.tool_call_id !== undefined && names.has(message.tool_call_id)) converted.name = names.get(message.tool_call_id)!;
    return converted;
  });
}

function argumentObject(text: string): Record<string, unknown> | string {
  try {
    const value: unknown = JSON.parse(text || "{}");
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : text;
  } catch {
    return text;
  }
}
