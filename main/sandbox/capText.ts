/** The most characters kept of each text an environment returns besides observations (which have their own limit). */
export const TEXT_CAPS = {
  /** `hint()`: 1-3 sentences in SPADE; appended to every hinted play's first observation. */
  hint: 4096,
  /** `solution()`: a reference action sequence or goal. */
  solution: 16_384,
  /** An exception's message (`ValueError: ...`). */
  exception: 2048,
  /** A Python traceback. */
  traceback: 16_384,
  /** The environment's class name. */
  className: 128,
} as const;

/**
 * `text` when it has at most `limit` characters, else its first `limit` characters and a line
 * saying it was cut (what, how long it was, the limit), so nothing downstream mistakes a capped
 * text for the whole.
 */
export function capText(text: string, limit: number, what: string): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n[${what} truncated: ${text.length} characters exceed the ${limit} character limit]`;
}
