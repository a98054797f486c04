// Splits a model's raw reply into its reasoning (inside <think>...</think>, or gpt-oss's harmony
// analysis channel) and the reply proper. Kept for the trace; the action is read from `text` only.

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
  if (raw.includes(channel)) return splitHarmony(raw);
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

const channel = "<|channel|>";
const message = "<|message|>";
const messageEnds = ["<|end|>", "<|return|>", "<|call|>"];

/**
 * gpt-oss's harmony format: `<|channel|>analysis<|message|>...<|end|><|start|>assistant<|channel|>final<|message|>...`.
 * The analysis channel, and commentary addressed to no tool (a preamble), are reasoning; the final
 * channel is the text. A message addressed to a tool (`commentary to=functions.name`) is kept in
 * the text as written, so the tool-call parser finds it. Text before the first channel (the
 * model skipped the header) counts as final. An unfinished analysis message (cut by maxTokens)
 * is reasoning, as with an unclosed `<think>`.
 */
function splitHarmony(raw: string): SplitReply {
  const reasoning: string[] = [];
  const text: string[] = [];
  const parts = raw.split(channel);
  const lead = parts.shift()!.replace(/<\|start\|>assistant$/, "").trim();
  if (lead) text.push(lead);
  for (const part of parts) {
    const at = part.indexOf(message);
    const header = at === -1 ? part : part.slice(0, at);
    let body = at === -1 ? "" : part.slice(at + message.length);
    let ending = "";
    for (const end of messageEnds) {
      const cut = body.indexOf(end);
      if (cut !== -1) {
        ending = end;
        body = body.slice(0, cut);
      }
    }
    const name = header.trim().split(/\s+/)[0] ?? "";
    if (header.includes(" to=")) text.push(`${channel}${header}${at === -1 ? "" : message}${body}${ending}`);
    else if (name === "final") text.push(body);
    else reasoning.push(body.trim());
  }
  return { text: text.join("").trim(), reasoning: reasoning.length > 0 ? reasoning.join("\n\n") : null };
}
