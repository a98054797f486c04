// Splits a model's raw reply into the reasoning it wrote inside <think>...</think> and the reply
// proper. Kept for the trace; the action is read from `text` only.

export interface SplitReply {
  /** The reply with every reasoning block removed (trimmed when reasoning was found). */
  text: string;
  /** The reasoning, blocks joined by a blank line, or null when there was none. */
  reasoning: string | null;
}

const open = "<think>";
const close = "</think>";

/**
 * Handles the shapes models produce: `<think>r</think>text`; several blocks; an unclosed `<think>r`
 * (cut off by maxTokens: all of it is reasoning, the text is empty); and `r</think>text` without an
 * opening tag (chat templates that put `<think>` into the prompt).
 */
export function splitReasoning(raw: string): SplitReply {
  const reasoning: string[] = [];
  const text: string[] = [];
  let rest = raw;
  const firstOpen = rest.indexOf(open);
  const firstClose = rest.indexOf(close);
  if (firstClose !== -1 && (firstOpen === -1 || firstClose < firstOpen)) {
    reasoning.push(rest.slice(0, firstClose));
    rest = rest.slice(firstClose + close.length);
  }
  for (;;) {
    const start = rest.indexOf(open);
    if (start === -1) {
      text.push(rest);
      break;
    }
    text.push(rest.slice(0, start));
    const end = rest.indexOf(close, start + open.length);
    if (end === -1) {
      reasoning.push(rest.slice(start + open.length));
      break;
    }
    reasoning.push(rest.slice(start + open.length, end));
    rest = rest.slice(end + close.length);
  }
  if (reasoning.length === 0) return { text: raw, reasoning: null };
  return { text: text.join("").trim(), reasoning: reasoning.map((block) => block.trim()).join("\n\n") };
}
