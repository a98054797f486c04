import { lastBoxedContent } from "../rollout/extractAction.js";

/** Where an answer was found in a reply. */
export type ExtractionPath = "boxed" | "hashes" | "lastNumber" | "answerIs";

export interface ExtractedAnswer {
  answer: string;
  via: ExtractionPath;
}

/**
 * The model's final answer: the content of the last complete `\boxed{...}` (nested braces
 * allowed), else what follows the last `#### `, else, for a choice, the letter after "answer is" /
 * "Answer:", else, when a number is expected, the last number in the reply. Null when none is found.
 */
export function extractAnswer(reply: string, numeric: boolean, choice = false): ExtractedAnswer | null {
  const boxed = lastBoxedContent(reply);
  if (boxed !== null) return { answer: boxed.trim(), via: "boxed" };
  const hashes = reply.lastIndexOf("####");
  if (hashes !== -1) {
    const rest = reply.slice(hashes + 4).split("\n")[0]!.trim();
    if (rest !== "") return { answer: rest, via: "hashes" };
  }
  const stated = choice ? /(?:answer is|Answer:)\s*\(?([A-Z])\)?(?![\w])/i.exec(reply) : null;
  if (choice && stated) return { answer: stated[1]!.toUpperCase(), via: "answerIs" };
  if (numeric) {
    const numbers = reply.match(/-?\$?\d[\d,]*(?:\.\d+)?/g);
    const last = numbers?.at(-1);
    if (last) return { answer: last, via: "lastNumber" };
  }
  return null;
}
