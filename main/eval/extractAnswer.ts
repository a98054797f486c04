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
  const boxed = lastBoxed(reply);
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

function lastBoxed(reply: string): string | null {
  const marker = "\\boxed{";
  let start = reply.lastIndexOf(marker);
  while (start !== -1) {
    let depth = 1;
    for (let i = start + marker.length; i < reply.length; i++) {
      const char = reply[i];
      if (char === "{") depth++;
      else if (char === "}" && --depth === 0) return reply.slice(start + marker.length, i);
    }
    // Unclosed (the reply was cut off): try the one before.
    start = start === 0 ? -1 : reply.lastIndexOf(marker, start - 1);
  }
  return null;
}
