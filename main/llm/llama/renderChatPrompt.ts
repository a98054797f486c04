import type {
  LlamaText} from "node-llama-cpp";
import {
  isLlamaText,
  SpecialToken,
  type ChatHistoryItem,
  type ChatModelFunctionCall,
  type ChatModelFunctions,
  type ChatModelResponse,
  type ChatWrapper,
  type LlamaModel,
  type Token,
  type Tokenizer,
} from "node-llama-cpp";
import type { ChatMessage, ToolSpec } from "../../../shared/llm.js";
import { toolCallSyntaxOf, type ToolCallSyntax } from "./parseToolCalls.js";

export interface RenderedPrompt {
  tokens: Token[];
  /** The rendered prompt before tokenisation (special tokens as text), for logs and tests. */
  text: LlamaText;
  /** Tokens that end the reply (besides the model's end-of-generation tokens). */
  stopTokens: Set<Token>;
  /** Texts that end the reply, from the chat template (and, with tools, the start of a tool result). */
  stopTexts: string[];
  /** How this template writes a tool call, when tools were offered; null otherwise. */
  toolSyntax: ToolCallSyntax | null;
}

/**
 * Renders a stateless message list with the model's own chat template (node-llama-cpp's chat
 * wrapper resolved for the model), ending with an open assistant turn. Tools are rendered by the
 * template as the model's available functions; an assistant message's tool calls and the `tool`
 * messages answering them become node-llama-cpp function calls with their results, inside the
 * same model response (so a prompt ending with tool results lets the model go on answering).
 */
export function renderChatPrompt(
  model: LlamaModel,
  wrapper: ChatWrapper,
  messages: ChatMessage[],
  tools: ToolSpec[] = [],
  /** The tokenizer to use (a caching one makes the earlier turns free). Defaults to the model's. */
  tokenizer: Tokenizer = model.tokenizer,
): RenderedPrompt {
  const chatHistory = toChatHistory(messages);
  const last = chatHistory[chatHistory.length - 1];
  if (last?.type !== "model" || !endsWithCall(last.response)) chatHistory.push({ type: "model", response: [] });
  const availableFunctions = tools.length > 0 ? toFunctions(tools) : undefined;
  const state = wrapper.generateContextState({ chatHistory, availableFunctions, documentFunctionParams: availableFunctions ? true : undefined });
  const stopTokens = new Set<Token>();
  const stopTexts: string[] = [];
  for (const trigger of state.stopGenerationTriggers) {
    if (!isLlamaText(trigger)) continue;
    if (trigger.values.every((value) => typeof value === "string")) {
      const text = trigger.values.join("");
      if (text) stopTexts.push(text);
      continue;
    }
    const tokens = trigger.tokenize(tokenizer);
    if (tokens.length === 1) stopTokens.add(tokens[0]!);
  }
  const toolSyntax = availableFunctions ? toolCallSyntaxOf(wrapper) : null;
  if (toolSyntax) stopTexts.push(...toolSyntax.stopTexts);
  return { tokens: state.contextText.tokenize(tokenizer), text: state.contextText, stopTokens, stopTexts, toolSyntax };
}

function toChatHistory(messages: ChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  /** Calls of the current model response still waiting for their `tool` result, by id. */
  const pending = new Map<string, ChatModelFunctionCall>();
  for (const message of messages) {
    if (message.role === "system") history.push({ type: "system", text: message.content });
    else if (message.role === "user") history.push({ type: "user", text: message.content });
    else if (message.role === "assistant") {
      const previous = history[history.length - 1];
      // After tool results the model goes on in the same response, as node-llama-cpp renders it.
      const response: ChatModelResponse["response"] = previous?.type === "model" && pending.size === 0 && endsWithCall(previous.response) ? previous.response : [];
      if (response.length === 0) history.push({ type: "model", response });
      if (message.content) response.push(message.content);
      for (const call of message.toolCalls ?? []) {
        const item: ChatModelFunctionCall = { type: "functionCall", name: call.name, params: parseArguments(call.arguments), result: "" };
        response.push(item);
        pending.set(call.id, item);
      }
    } else {
      const call = message.toolCallId === undefined ? undefined : pending.get(message.toolCallId);
      if (!call) throw new RangeError(`a tool message answers call ${JSON.stringify(message.toolCallId)}, which no earlier assistant message made`);
      call.result = message.content;
      pending.delete(message.toolCallId!);
    }
  }
  return history;
}

function endsWithCall(response: ChatModelResponse["response"]): boolean {
  const last = response[response.length - 1];
  return typeof last === "object" && last !== null && last.type === "functionCall";
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function toFunctions(tools: ToolSpec[]): ChatModelFunctions {
  const functions: Record<string, { description?: string; params?: unknown }> = {};
  for (const tool of tools) functions[tool.name] = { description: tool.description, params: tool.parameters };
  return functions as ChatModelFunctions;
}

/** The text a LlamaText spells, special-token text included (built-in tokens such as BOS spell nothing). */
export function textOf(value: string | LlamaText | undefined | null): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  return value.values.map((part) => (typeof part === "string" ? part : part instanceof SpecialToken ? "" : part.value)).join("");
}
