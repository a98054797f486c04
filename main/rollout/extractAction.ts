const MARKER = "\\boxed{";

/** Start and end (the closing brace) of the last complete `\boxed{...}`, braces inside balanced; null when there is none. */
function lastBoxedSpan(text: string): [number, number] | null {
  let start = text.lastIndexOf(MARKER);
  while (start >= 0) {
    let depth = 0;
    for (let i = start + MARKER.length - 1; i < text.length; i++) {
      if (text[i] === "{") depth++;
      else if (text[i] === "}" && --depth === 0) return [start, i];
    }
    // Unclosed (a reply cut off by max tokens): try the one before.
    start = start === 0 ? -1 : text.lastIndexOf(MARKER, start - 1);
  }
  return null;
}

/**
 * The action sent to `step()`: the reply normalised to its last `\boxed{...}`, or the raw reply
 * when it has none. `step()` extracts the command itself, so the action keeps the wrapper.
 */
export function extractBoxedAction(reply: string): string {
  const span = lastBoxedSpan(reply);
  return span ? reply.slice(span[0], span[1] + 1) : reply;
}

/** The content of the last complete `\boxed{...}`, or null. */
export function lastBoxedContent(text: string): string | null {
  const span = lastBoxedSpan(text);
  return span ? text.slice(span[0] + MARKER.length, span[1]) : null;
}

/**
 * The reference's action rule: the FIRST `\boxed{...}` whose content has no braces (then the same
 * wrapped once or twice in extra braces, `\boxed{{x}}`); failing those, the last `\boxed` with
 * balanced braces, one or two outer brace pairs stripped. Null when there is none.
 */
export function firstBoxedContent(text: string): string | null {
  for (const pattern of [/\\boxed\{([^{}]+)\}/, /\\boxed\{\{([^{}]+)\}\}/, /\\boxed\{\{\{([^{}]+)\}\}\}/]) {
    const match = pattern.exec(text);
    if (match) return match[1]!.trim();
  }
  const at = text.lastIndexOf("\\boxed");
  const open = at < 0 ? -1 : text.indexOf("{", at);
  if (open < 0) return null;
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) {
      let content = text.slice(open + 1, i).trim();
      for (let k = 0; k < 2 && content.startsWith("{") && content.endsWith("}"); k++) content = content.slice(1, -1).trim();
      return content;
    }
  }
  return null;
}

/** The action sent to `step()` under the reference's rule: `\boxed{<first content>}`, or the reply stripped when it has none. */
export function extractFirstBoxedAction(reply: string): string {
  const content = firstBoxedContent(reply);
  return content ? `\\boxed{${content}}` : reply.trim();
}
