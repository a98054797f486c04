/**
 * The action sent to `step()`: the reply normalised to its last `\boxed{...}` (braces inside the
 * box balanced), or the raw reply when it has none. `step()` extracts the command itself, so the
 * action keeps the `\boxed{}` wrapper.
 */
export function extractBoxedAction(reply: string): string {
  const marker = "\\boxed{";
  let searchFrom = reply.length;
  while (searchFrom >= 0) {
    const start = reply.lastIndexOf(marker, searchFrom);
    if (start < 0) break;
    const end = matchingBrace(reply, start + marker.length - 1);
    if (end >= 0) return reply.slice(start, end + 1);
    searchFrom = start - 1;
  }
  return reply;
}

/** The content of the last `\boxed{...}`, or null. */
export function lastBoxedContent(text: string): string | null {
  const boxed = extractBoxedAction(text);
  if (boxed === text && !text.startsWith("\\boxed{")) return null;
  return boxed.slice("\\boxed{".length, -1);
}

function matchingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const char = text[i];
    if (char === "{") depth++;
    else if (char === "}" && --depth === 0) return i;
  }
  return -1;
}
