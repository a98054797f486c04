import { escapeControlCharacters } from "./escapeControlCharacters.js";

/** Lines of a corpus file that indexing left out, with why (the first few, each naming file and line). */
export interface SkippedLines {
  count: number;
  /** At most `maxSkippedExamples` messages like `docs.jsonl:3: invalid JSON (...)`. */
  examples: string[];
}

export const maxSkippedExamples = 5;

export const noneSkipped: SkippedLines = Object.freeze({ count: 0, examples: Object.freeze([]) as unknown as string[] });

/** The sum of several files' skipped lines (a folder corpus). */
export function addSkipped(parts: readonly SkippedLines[]): SkippedLines {
  return {
    count: parts.reduce((sum, part) => sum + part.count, 0),
    examples: parts.flatMap((part) => part.examples).slice(0, maxSkippedExamples),
  };
}

/** One message for the researcher: how many lines of corpus `path` were left out, and the first few reasons. */
export function describeSkippedLines(path: string, skipped: SkippedLines): string {
  const { count, examples } = skipped;
  return `corpus ${escapeControlCharacters(path)}: ${count} line${count === 1 ? " is" : "s are"} not a document and left out (${examples.join("; ")}${count > examples.length ? "; ..." : ""})`;
}
