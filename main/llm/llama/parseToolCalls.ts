import type { ChatWrapper } from "node-llama-cpp";
import type { ToolCall } from "../../../shared/llm.js";
import { textOf } from "./renderChatPrompt.js";

/** How one chat template writes a function call, read from node-llama-cpp's wrapper settings. */
export interface ToolCallSyntax {
  /** Text before the function name, e.g. `<tool_call>\n{"name": "` (Qwen) or `<function=` (Llama 3.1). */
  prefix: string;
  /** Text between the name and the JSON arguments. */
  paramsPrefix: string;
  /** Text after the arguments. */
  suffix: string;
  /** Texts that end the reply when tools are offered: where the template would start a tool result (the model must not write it). */
  stopTexts: string[];
}

/**
 * The call syntax of `wrapper`. Generation stops where the template's tool result would begin,
 * so a call is returned to the caller (which runs the tool and sends the result back as a `tool`
 * message) instead of the model inventing the result; templates that allow one call per message
 * (no parallel calls) stop at the call's end.
 */
export function toolCallSyntaxOf(wrapper: ChatWrapper): ToolCallSyntax {
  const { call, result, parallelism } = wrapper.settings.functions;
  const suffix = textOf(call.suffix);
  const untilPlaceholder = (text: string) => text.split("{{")[0]!;
  const stopTexts = [untilPlaceholder(textOf(result.prefix)), untilPlaceholder(textOf(parallelism?.result?.sectionPrefix))];
  if (!parallelism && suffix.trim()) stopTexts.push(suffix);
  return {
    prefix: textOf(call.prefix).replace(/^\s+/, ""),
    paramsPrefix: textOf(call.paramsPrefix),
    suffix,
    stopTexts: stopTexts.filter((text) => text.trim().length > 0),
  };
}

/**
 * The function calls written in `raw` (the reply with special tokens spelled out), in order,
 * and the text outside them. A call cut off before its suffix (the reply stopped at it) still
 * counts when its arguments are complete JSON; arguments that are not JSON are kept as written.
 */
export function parseToolCalls(raw: string, syntax: ToolCallSyntax, idPrefix = "call"): { calls: ToolCall[]; text: string } {
  const calls: ToolCall[] = [];
  const outside: string[] = [];
  let rest = raw;
  while (syntax.prefix) {
    const start = rest.indexOf(syntax.prefix);
    if (start === -1) break;
    const nameStart = start + syntax.prefix.length;
    const paramsAt = rest.indexOf(syntax.paramsPrefix, nameStart);
    if (paramsAt === -1 || !syntax.paramsPrefix) break;
    const name = rest.slice(nameStart, paramsAt).trim();
    const argsStart = paramsAt + syntax.paramsPrefix.length;
    const { args, end } = readArguments(rest, argsStart, syntax.suffix);
    outside.push(rest.slice(0, start));
    calls.push({ id: `${idPrefix}_${calls.length}`, name, arguments: args });
    rest = rest.slice(end);
  }
  outside.push(rest);
  return { calls, text: outside.join("").trim() };
}

/** The arguments text from `start`: up to the first suffix after which it parses as JSON, else up to the first suffix, else to the end. */
function readArguments(text: string, start: number, suffix: string): { args: string; end: number } {
  if (suffix) {
    let at = text.indexOf(suffix, start);
    const first = at;
    while (at !== -1) {
      const candidate = text.slice(start, at).trim();
      if (isJson(candidate)) return { args: candidate, end: at + suffix.length };
      at = text.indexOf(suffix, at + 1);
    }
    if (first !== -1) return { args: text.slice(start, first).trim(), end: first + suffix.length };
  }
  return { args: text.slice(start).trim(), end: text.length };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
