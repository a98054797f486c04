import type { ChatMessage } from "../../shared/llm.js";

// A turn's prompt is the previous turn's prompt plus the previous reply and observation, so storing
// every prompt in full grows with the square of the episode length. The turns table keeps only
// what changed; these functions are the two directions of that encoding.

/** What a turn needs of the turn before it to continue the conversation. */
export interface PreviousTurn {
  rawReply: string | null;
  observation: string | null;
}

/** How one turn's prompt is stored: `messages` NULL = the continuation; otherwise appended after `prefix` kept messages. */
export interface StoredPrompt {
  messages: ChatMessage[] | null;
  prefix: number;
}

/** The implicit next prompt: the previous prompt, its reply (assistant), then its observation (user). */
export function continuePrompt(previous: readonly ChatMessage[], turn: PreviousTurn): ChatMessage[] {
  return [...previous, { role: "assistant", content: turn.rawReply ?? "" }, { role: "user", content: turn.observation ?? "" }];
}

/**
 * Encodes a turn's prompt against the previous turn's full prompt (null when unknown or for turn 0).
 * `full` null means "the continuation" when there is a previous prompt, "not recorded" otherwise.
 */
export function encodePrompt(full: readonly ChatMessage[] | null, previousFull: readonly ChatMessage[] | null, previous: PreviousTurn | null): StoredPrompt {
  if (full === null) return { messages: null, prefix: 0 };
  if (previousFull === null || previous === null) return { messages: [...full], prefix: 0 };
  const continuation = continuePrompt(previousFull, previous);
  if (sameMessages(full, continuation)) return { messages: null, prefix: 0 };
  let prefix = 0;
  while (prefix < full.length && prefix < previousFull.length && sameMessage(full[prefix]!, previousFull[prefix]!)) prefix++;
  return { messages: full.slice(prefix), prefix };
}

/** Decodes a stored prompt back to the full message list (null when not recorded). */
export function decodePrompt(stored: StoredPrompt, previousFull: readonly ChatMessage[] | null, previous: PreviousTurn | null): ChatMessage[] | null {
  if (stored.messages === null) return previousFull === null || previous === null ? null : continuePrompt(previousFull, previous);
  if (stored.prefix === 0) return stored.messages;
  return [...(previousFull ?? []).slice(0, stored.prefix), ...stored.messages];
}

function sameMessages(a: readonly ChatMessage[], b: readonly ChatMessage[]): boolean {
  return a.length === b.length && a.every((message, i) => sameMessage(message, b[i]!));
}

function sameMessage(a: ChatMessage, b: ChatMessage): boolean {
  const keys = Object.keys(a) as (keyof ChatMessage)[];
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}
