import type { ChatMessage } from "../../shared/llm.js";
import type { Turn } from "../store/queries/episodes.js";

/**
 * What the model generated on a turn: the reply, with its `<think>` reasoning put back in front
 * when the backend split some off (the token ids cover both).
 */
export function assistantContent(turn: Pick<Turn, "rawReply" | "reasoning">): string {
  const reply = turn.rawReply ?? "";
  return turn.reasoning === null ? reply : `<think>\n${turn.reasoning}\n</think>\n\n${reply}`;
}

/**
 * The whole multi-turn conversation of a play: turn 0's prompt (system prompt and first
 * observation), then each reply and the observation it got, ending with the last reply (the
 * observation after it was never shown to the model). Null when turn 0's prompt was not recorded.
 */
export function playConversation(turns: readonly Turn[]): ChatMessage[] | null {
  const first = turns[0];
  if (!first?.messages) return null;
  const messages: ChatMessage[] = first.messages.map((message) => ({ ...message }));
  turns.forEach((turn, index) => {
    messages.push({ role: "assistant", content: assistantContent(turn) });
    if (index < turns.length - 1) messages.push({ role: "user", content: turn.observation ?? "" });
  });
  return messages;
}
