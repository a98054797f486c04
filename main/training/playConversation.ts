import type { ToolCall } from "../../shared/llm.js";
import type { Episode, Turn } from "../store/queries/episodes.js";
import { toOpenAiMessage, toOpenAiToolCall, toOpenAiTools, type OpenAiMessage, type OpenAiTool } from "./openAiMessages.js";

/**
 * What the model generated on a turn: the reply, with its `<think>` reasoning put back in front
 * when the backend split some off (the token ids cover both).
 */
export function assistantContent(turn: Pick<Turn, "rawReply" | "reasoning">): string {
  const reply = turn.rawReply ?? "";
  return turn.reasoning === null ? reply : `<think>\n${turn.reasoning}\n</think>\n\n${reply}`;
}

/** A native tool call of a turn and the output it got, as the agent loop records them in the turn's `info.toolCalls`. */
export interface TurnToolCall {
  call: ToolCall;
  result: string | null;
}

/** The native tool calls a turn made (null for a turn without any). */
export function turnToolCalls(turn: Pick<Turn, "info">): TurnToolCall[] | null {
  const recorded = turn.info?.toolCalls;
  if (!Array.isArray(recorded) || recorded.length === 0) return null;
  const calls: TurnToolCall[] = [];
  for (const entry of recorded) {
    if (!entry || typeof entry !== "object" || Array.isArray(entry)) continue;
    const { id, name, arguments: args, result } = entry as Record<string, unknown>;
    if (typeof id !== "string" || typeof name !== "string") continue;
    calls.push({ call: { id, name, arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}) }, result: typeof result === "string" ? result : null });
  }
  return calls.length > 0 ? calls : null;
}

/** The assistant message of a turn in the OpenAI format: its content, and its native tool calls. */
export function assistantMessage(turn: Pick<Turn, "rawReply" | "reasoning" | "info">): OpenAiMessage {
  const calls = turnToolCalls(turn);
  return { role: "assistant", content: assistantContent(turn), ...(calls ? { tool_calls: calls.map(({ call }) => toOpenAiToolCall(call)) } : {}) };
}

/**
 * The whole multi-turn conversation of a play in the OpenAI format: turn 0's prompt (system
 * prompt and first observation), then each reply and what it got (the observation as a user
 * message, or each native tool call's output as a `tool` message), ending with the last reply
 * (what came after it was never shown to the model). Null when turn 0's prompt was not recorded.
 */
export function playConversation(turns: readonly Turn[]): OpenAiMessage[] | null {
  const first = turns[0];
  if (!first?.messages) return null;
  const messages: OpenAiMessage[] = first.messages.map(toOpenAiMessage);
  turns.forEach((turn, index) => {
    messages.push(assistantMessage(turn));
    if (index === turns.length - 1) return;
    const calls = turnToolCalls(turn);
    if (calls) for (const { call, result } of calls) messages.push({ role: "tool", content: result ?? "", tool_call_id: call.id });
    else messages.push({ role: "user", content: turn.observation ?? "" });
  });
  return messages;
}

/** The `tools` of a play's rows: the tools its model was offered, or nothing for a text play. */
export function playTools(episode: Pick<Episode, "tools">): { tools?: OpenAiTool[] } {
  return episode.tools && episode.tools.length > 0 ? { tools: toOpenAiTools(episode.tools) } : {};
}
