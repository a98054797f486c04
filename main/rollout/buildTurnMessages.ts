import type { ChatMessage } from "../../shared/llm.js";

/**
 * The chat for the next agent turn: the system prompt (none in the reference protocol), then the
 * observations and replies so far. `historyTurns` keeps only the last exchanges (the first
 * observation always stays, it states the task).
 */
export function buildTurnMessages(system: string | null, observations: string[], replies: string[], historyTurns?: number): ChatMessage[] {
  const messages: ChatMessage[] = system === null ? [] : [{ role: "system", content: system }];
  const first = historyTurns === undefined ? 0 : Math.max(1, replies.length - historyTurns + 1);
  messages.push({ role: "user", content: observations[0] ?? "" });
  for (let i = first; i <= replies.length; i++) {
    if (i === 0) continue;
    messages.push({ role: "assistant", content: replies[i - 1] ?? "" });
    messages.push({ role: "user", content: observations[i] ?? "" });
  }
  return messages;
}
