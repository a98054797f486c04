import { spawnSync } from "node:child_process";
import { resourcePath } from "../paths.js";

export interface ExtractCodeOptions {
  /**
   * "first": the first ```python block, as the reference takes it. "last": the last one (this
   * project's earlier rule). Defaults to "first".
   */
  block?: "first" | "last";
  /** Apply the reference's f-string brace repair to the block. Defaults to true. */
  repairBraces?: boolean;
}

/**
 * The environment code in a designer reply: the first ```python fenced block (or the first fenced
 * block of any language when there is no python one), with the reference's f-string brace repair.
 * Null when the reply has no fenced block.
 */
export function extractPythonCode(reply: string, options: ExtractCodeOptions = {}): string | null {
  const code = pickBlock(reply, options.block ?? "first");
  if (code === null) return null;
  return options.repairBraces === false ? code : repairFStringBraces(code);
}

function pickBlock(reply: string, which: "first" | "last"): string | null {
  const blocks = [...reply.matchAll(/```([\w+-]*)[^\n]*\n([\s\S]*?)```/g)].map((match) => ({ language: (match[1] ?? "").toLowerCase(), code: match[2] ?? "" }));
  const python = blocks.filter((block) => block.language === "python" || block.language === "py");
  const candidates = python.length > 0 ? python : blocks;
  const chosen = which === "first" ? candidates[0] : candidates.at(-1);
  if (chosen) return chosen.code.trimEnd() + "\n";
  // An unterminated block at the end of a reply cut off by max tokens: keep what is there.
  const open = reply.match(/```(?:python|py)\s*\n([\s\S]*)$/);
  return open ? (open[1] ?? "").trimEnd() + "\n" : null;
}

let pythonMissing = false;

/**
 * The reference's brace repair: while the code has a syntax error, the `{...}` groups of the line
 * it points at whose inside is not a Python expression get doubled (`\boxed{<action>}` in an
 * f-string becomes `\boxed{{<action>}}`). Needs a host `python3` to parse (nothing is executed);
 * without one the code comes back unchanged.
 */
export function repairFStringBraces(code: string): string {
  if (pythonMissing) return code;
  const result = spawnSync("python3", [resourcePath("python", "repair_braces.py")], { input: code, encoding: "utf8", timeout: 10_000, maxBuffer: 16 * 1024 * 1024 });
  if (result.error) {
    pythonMissing = (result.error as NodeJS.ErrnoException).code === "ENOENT";
    return code;
  }
  return result.status === 0 ? result.stdout : code;
}
