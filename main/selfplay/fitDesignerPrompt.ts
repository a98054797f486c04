import type { ChatMessage } from "../../shared/llm.js";
import { countWords, truncateDocument } from "../corpus/truncateWords.js";
import type { LlmBackend } from "../llm/LlmBackend.js";

export interface FittedPrompt {
  messages: ChatMessage[];
  /** The document as it went into the prompt (possibly trimmed). */
  document: string | null;
  /** Set when the document was trimmed: its words before and after. */
  trimmed: { fromWords: number; toWords: number; budgetTokens: number } | null;
}

/**
 * Tokens a designer prompt may take: the context minus room for the reply (the reply budget, but
 * at most half the context, so a small model still gets a prompt).
 */
export function promptBudget(contextSize: number, maxReplyTokens: number): number {
  return contextSize - Math.min(maxReplyTokens, Math.floor(contextSize / 2));
}

/**
 * Builds the designer prompt and, when the backend can count tokens and it does not fit the
 * context, trims the grounding document (by words, binary search, with the truncation marker)
 * until it does. A prompt that
 * does not fit even without a document is returned as is: the backend refuses it and the attempt
 * is recorded as invalid with the reason.
 */
export async function fitDesignerPrompt(backend: LlmBackend, build: (document: string | null) => ChatMessage[], document: string | null, maxReplyTokens: number): Promise<FittedPrompt> {
  const messages = build(document);
  if (document === null || !backend.countTokens || !backend.contextSize) return { messages, document, trimmed: null };
  const budget = promptBudget(backend.contextSize, maxReplyTokens);
  const fits = async (candidate: ChatMessage[]) => (await backend.countTokens!(candidate)) <= budget;
  if (await fits(messages)) return { messages, document, trimmed: null };
  const words = countWords(document);
  let low = 0;
  let high = words - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (await fits(build(truncateDocument(document, mid)))) low = mid;
    else high = mid - 1;
  }
  const kept = low === 0 ? "" : truncateDocument(document, low);
  return { messages: build(kept), document: kept, trimmed: { fromWords: words, toWords: low, budgetTokens: budget } };
}
