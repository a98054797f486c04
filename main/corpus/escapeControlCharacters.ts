const named: Record<string, string> = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/**
 * The text with every control character (C0, DEL, C1, and the Unicode line and paragraph
 * separators) written as an escape (`\t`, `\n`, `\r`, else `\xNN` / `\uNNNN`), so a message quoting a
 * corpus line shows a NUL byte or a terminal escape as readable text instead of echoing it raw.
 */
export function escapeControlCharacters(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029]/gu, (char) => {
    const code = char.charCodeAt(0);
    return named[char] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`);
  });
}
