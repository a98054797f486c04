export interface ExtractCodeOptions {
  /**
   * "first": the first ```python block, as the reference takes it. "last": the last one (this
   * project's earlier rule). Defaults to "first".
   */
  block?: "first" | "last";
}

/**
 * The environment code in a designer reply: the first ```python fenced block (or the first fenced
 * block of any language when there is no python one). Null when the reply has no fenced block.
 * Picking only: the reference's f-string brace repair runs in the sandbox
 * (main/sandbox/repairFStringBraces.ts).
 */
export function extractPythonCode(reply: string, options: ExtractCodeOptions = {}): string | null {
  const blocks = [...reply.matchAll(/```([\w+-]*)[^\n]*\n([\s\S]*?)```/g)].map((match) => ({ language: (match[1] ?? "").toLowerCase(), code: match[2] ?? "" }));
  const python = blocks.filter((block) => block.language === "python" || block.language === "py");
  const candidates = python.length > 0 ? python : blocks;
  const chosen = (options.block ?? "first") === "first" ? candidates[0] : candidates.at(-1);
  if (chosen) return chosen.code.trimEnd() + "\n";
  // An unterminated block at the end of a reply cut off by max tokens: keep what is there.
  const open = reply.match(/```(?:python|py)\s*\n([\s\S]*)$/);
  return open ? (open[1] ?? "").trimEnd() + "\n" : null;
}
