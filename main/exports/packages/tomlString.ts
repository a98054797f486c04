/**
 * `text` as a TOML basic string (also a valid JSON and Python string literal): printable ASCII as
 * it is, `"` and `\` escaped, everything else as `\uXXXX` / `\UXXXXXXXX` (a lone surrogate as
 * U+FFFD). The result is one line of printable ASCII, so it is safe in a comment too.
 */
export function tomlString(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '"' || char === "\\") out += `\\${char}`;
    else if (code >= 0x20 && code < 0x7f) out += char;
    else if (code >= 0xd800 && code <= 0xdfff) out += "\\uFFFD";
    else if (code <= 0xffff) out += `\\u${code.toString(16).toUpperCase().padStart(4, "0")}`;
    else out += `\\U${code.toString(16).toUpperCase().padStart(8, "0")}`;
  }
  return `${out}"`;
}
