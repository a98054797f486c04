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
