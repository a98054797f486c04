/**
 * The environment code in a designer reply: the last ```python fenced block (or the last fenced
 * block of any language when there is no python one). Null when the reply has no fenced block.
 */
export function extractPythonCode(reply: string): string | null {
  const blocks = [...reply.matchAll(/```([\w+-]*)[^\n]*\n([\s\S]*?)```/g)].map((match) => ({ language: (match[1] ?? "").toLowerCase(), code: match[2] ?? "" }));
  const python = blocks.filter((block) => block.language === "python" || block.language === "py");
  const chosen = (python.length > 0 ? python : blocks).at(-1);
  if (chosen) return chosen.code.trimEnd() + "\n";
  // An unterminated block at the end of a reply cut off by max tokens: keep what is there.
  const open = reply.match(/```(?:python|py)\s*\n([\s\S]*)$/);
  return open ? (open[1] ?? "").trimEnd() + "\n" : null;
}
