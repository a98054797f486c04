// A model's reply -> text paragraphs and fenced code blocks, so the page can show code as code
// (no Markdown library: replies are plain text with ``` fences, the only structure that matters).

export type ReplyBlock = { kind: "text"; text: string } | { kind: "code"; language: string; code: string; closed: boolean };

/** Splits on ``` fences; an unclosed fence (a reply cut off by its token budget) runs to the end. */
export function splitReplyBlocks(reply: string): ReplyBlock[] {
  const blocks: ReplyBlock[] = [];
  const fence = /```([\w+-]*)[^\n]*\n([\s\S]*?)(```|$)/g;
  let last = 0;
  for (const match of reply.matchAll(fence)) {
    const text = reply.slice(last, match.index).trim();
    if (text) blocks.push({ kind: "text", text });
    blocks.push({ kind: "code", language: (match[1] ?? "").toLowerCase(), code: (match[2] ?? "").replace(/\n$/, ""), closed: match[3] === "```" });
    last = match.index + match[0].length;
    if (match[0].length === 0) break;
  }
  const rest = reply.slice(last).trim();
  if (rest) blocks.push({ kind: "text", text: rest });
  return blocks;
}
