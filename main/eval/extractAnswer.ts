import { lastBoxedContent } from "../rollout/extractAction.js";

/** Where an answer was found in a reply. */
export type ExtractionPath = "boxed" | "hashes" | "lastNumber";

export interface ExtractedAnswer {
  answer: string;
  via: ExtractionPath;
}

/**
 * The model's final answer: the content of the last complete `\boxed{...}` (nested braces
 * allowed), else what follows the last `#### `, else, when a number is expected, the last number
 * in the reply. Null when none is found.
 */
export function extractAnswer(reply: string, numeric: boolean): ExtractedAnswer | null {
  const boxed = lastBoxedContent(reply);
  if (boxed !== null) return { answer: boxed.trim(), via: "boxed" };
  const hashes = reply.lastIndexOf("####");
  if (hashes !== -1) {
    const rest = reply.slice(hashes + 4).split("\n")[0]!.trim();
    if (rest !== "") return { answer: rest, via: "hashes" };
  }
  if (numeric) {
    const numbers = reply.match(/-?\$?\d[\d,]*(?:\.\d+)?/g);
    const last = numbers?.at(-1);
    if (last) return { answer: last, via: "lastNumber" };
  }
  return null;
}
