// Engine text marks code with Markdown backticks (`contextSize`, "no ```python code block"): the
// page shows such spans as code and never the backticks themselves.

export interface TextPart {
  kind: "text" | "code";
  text: string;
}

const codeSpan = /```([\w+-]+)|`([^`\n]+)`/g;

/** The text cut into plain parts and code parts; stray backticks are dropped. */
export function splitInlineCode(text: string): TextPart[] {
  const parts: TextPart[] = [];
  const push = (kind: TextPart["kind"], value: string) => {
    const clean = kind === "text" ? value.replace(/`/g, "") : value;
    if (clean) parts.push({ kind, text: clean });
  };
  let at = 0;
  for (const match of text.matchAll(codeSpan)) {
    push("text", text.slice(at, match.index));
    push("code", match[1] ?? match[2] ?? "");
    at = match.index + match[0].length;
  }
  push("text", text.slice(at));
  return parts;
}

/** The text without backticks, for places that cannot hold markup (tooltips). */
export function plainText(text: string): string {
  return splitInlineCode(text)
    .map((part) => part.text)
    .join("");
}
