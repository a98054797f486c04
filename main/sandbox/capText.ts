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
  /**
   * The tool schemas `get_tools()` answers, as JSON: stored with every episode and sent with every
   * agent request. A list past it is refused (schemas cannot be cut and stay schemas), in the
   * harness before it crosses the pipe and by the engine (`checkedToolSchemas`).
   */
  tools: 32_768,
} as const;

/** The caps by name, as sent to the Python harness with every open (it cuts each text the same way before encoding it). */
export type TextCaps = { readonly [name in keyof typeof TEXT_CAPS]: number };

/** The line a capped text ends with. */
function cutNote(what: string, length: number, limit: number): string {
  return `\n[${what} truncated: ${length} characters exceed the ${limit} character limit]`;
}

/**
 * `text` when it has at most `limit` characters, else its first `limit` characters and a line
 * saying it was cut (what, how long it was, the limit), so nothing downstream mistakes a capped
 * text for the whole. A text the harness already cut to this limit (its first `limit` characters
 * and that line) is kept as it is.
 */
export function capText(text: string, limit: number, what: string): string {
  if (text.length <= limit) return text;
  const note = /^\n\[.*? truncated: (\d+) characters exceed the (\d+) character limit\]$/.exec(text.slice(limit));
  if (note && note[0] === cutNote(what, Number(note[1]), limit) && Number(note[1]) > limit) return text;
  return `${text.slice(0, limit)}${cutNote(what, text.length, limit)}`;
}
