// Near-duplicate measures for the novelty check. Code is compared on token 5-grams with
// identifiers folded to one symbol, so renaming variables does not make an environment new.

const PYTHON_WORDS = new Set(
  "False None True and as assert break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield self".split(" "),
);

function codeTokens(code: string): string[] {
  const withoutComments = code.replace(/#[^\n]*/g, "");
  const tokens = withoutComments.match(/[A-Za-z_]\w*|\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\S/g) ?? [];
  return tokens.map((token) => (/^[A-Za-z_]/.test(token) && !PYTHON_WORDS.has(token) ? "ID" : token));
}

function shingles(tokens: readonly string[], size: number): Set<string> {
  const result = new Set<string>();
  if (tokens.length < size) {
    if (tokens.length > 0) result.add(tokens.join(" "));
    return result;
  }
  for (let i = 0; i + size <= tokens.length; i++) result.add(tokens.slice(i, i + size).join(" "));
  return result;
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const item of a) if (b.has(item)) shared++;
  return shared / (a.size + b.size - shared);
}

/** Code fingerprint: a set of token 5-grams. */
export function codeFingerprint(code: string): Set<string> {
  return shingles(codeTokens(code), 5);
}

/** Text fingerprint: a set of character trigrams of the whitespace-folded lower-cased text. */
export function textFingerprint(text: string): Set<string> {
  const folded = text.toLowerCase().replace(/\s+/g, " ").trim();
  const result = new Set<string>();
  for (let i = 0; i + 3 <= folded.length; i++) result.add(folded.slice(i, i + 3));
  if (folded.length > 0 && folded.length < 3) result.add(folded);
  return result;
}

export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}
