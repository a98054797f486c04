import type { ToolSchema } from "../../shared/environment.js";
import type { ToolCall, ToolSpec } from "../../shared/llm.js";

/**
 * The marker `ToolUseBaseEnv.step()` (resources/python/spade_env.py) reads as "run this tool call
 * as the rollout's native tool execution": the tool's own output comes back, and it does not count
 * as one of the environment's turns (the reference calls `execute_tool` directly, outside `step()`).
 */
export const nativeToolCallPrefix = "<spade:execute_tool>";

/** The environment's OpenAI-format schemas as the tools a chat request offers. */
export function toolSpecs(schemas: readonly ToolSchema[]): ToolSpec[] {
  return schemas.map((schema) => ({
    name: schema.function.name,
    ...(schema.function.description === undefined ? {} : { description: schema.function.description }),
    parameters: schema.function.parameters ?? { type: "object", properties: {} },
  }));
}

/**
 * Tool calls written as text, for backends that return no native `toolCalls`: every
 * `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` block (XML-style
 * `<function=name><parameter=key>value</parameter></function>` too). Blocks that are not a call are skipped.
 */
export function parseTextToolCalls(text: string, turn: number): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const match of text.matchAll(/<tool_call>([\s\S]*?)<\/tool_call>/g)) {
    const call = parseBlock(match[1] ?? "");
    if (call) calls.push({ id: `call_${turn}_${calls.length}`, ...call });
  }
  return calls;
}

function parseBlock(block: string): { name: string; arguments: string } | null {
  const xml = /<function=([\w.-]+)>([\s\S]*?)<\/function>/.exec(block);
  if (xml) {
    const args: Record<string, unknown> = {};
    for (const parameter of xml[2]!.matchAll(/<parameter=([\w.-]+)>([\s\S]*?)<\/parameter>/g)) {
      const raw = parameter[2]!.trim();
      try {
        args[parameter[1]!] = JSON.parse(raw);
      } catch {
        args[parameter[1]!] = raw;
      }
    }
    return { name: xml[1]!, arguments: JSON.stringify(args) };
  }
  try {
    const data: unknown = JSON.parse(block.trim());
    if (!data || typeof data !== "object" || typeof (data as { name?: unknown }).name !== "string") return null;
    const record = data as { name: string; arguments?: unknown; parameters?: unknown };
    const args = record.arguments ?? record.parameters ?? {};
    return { name: record.name, arguments: typeof args === "string" ? args : JSON.stringify(args) };
  } catch {
    return null;
  }
}

/** The call's arguments as an object (a call whose arguments are not a JSON object gets `{}`, as the reference does). */
export function callArguments(call: ToolCall): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(call.arguments || "{}");
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A call as the `<tool_call>` text recorded as the turn's action. */
export function toolCallText(call: ToolCall): string {
  return `<tool_call>${JSON.stringify({ name: call.name, arguments: callArguments(call) })}</tool_call>`;
}

/** The action that makes `ToolUseBaseEnv.step()` execute one call natively. */
export function nativeToolAction(call: ToolCall): string {
  return nativeToolCallPrefix + JSON.stringify({ name: call.name, arguments: callArguments(call) });
}
