/**
 * Whether two answers are the same number, read the way AIME-style answers are written: integers
 * (`042`, `1,024`), decimals, fractions `a/b`, `\frac{a}{b}` (`\dfrac`, `\tfrac`, a leading minus),
 * and the usual wrapping LaTeX (`$...$`, `\boxed{}`, `\text{}`, `\left(` / `\right)`, `^\circ`, a
 * trailing `\%` or period, `x = ...`). Exact for fractions (cross-multiplied), 1e-9 relative for
 * decimals. False when either side is not a number in this sense.
 */
export function mathEquivalent(predicted: string, expected: string): boolean {
  const a = readRational(predicted);
  const b = readRational(expected);
  if (a === null || b === null) return false;
  if (a.exact && b.exact) return a.num * b.den === b.num * a.den;
  const x = Number(a.num) / Number(a.den);
  const y = Number(b.num) / Number(b.den);
  return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(y));
}

interface Rational {
  num: bigint;
  den: bigint;
  /** False for a value read from a decimal with more digits than a bigint fraction keeps exactly. */
  exact: boolean;
}

/** Strips the LaTeX that does not change an answer's value. */
export function stripAnswerLatex(text: string): string {
  let s = text.trim();
  for (let i = 0; i < 3; i++) {
    s = s.replace(/^\$+|\$+$/g, "").replace(/^\\\(|\\\)$/g, "").replace(/^\\\[|\\\]$/g, "").trim();
    const boxed = /^\\boxed\{([\s\S]*)\}$/.exec(s);
    if (boxed) s = boxed[1]!.trim();
  }
  s = s
    .replace(/\\(?:text|textbf|mathrm|mathbf)\{([^{}]*)\}/g, "$1")
    .replace(/\\left|\\right|\\!|\\,|\\;|\\ /g, "")
    .replace(/\^\s*\{?\\circ\}?|°/g, "")
    .replace(/\\%|%/g, "")
    .replace(/\\(?:d|t)frac/g, "\\frac")
    .trim();
  const assignment = /^[A-Za-z](?:_\{?\w+\}?)?\s*=\s*(.+)$/.exec(s);
  if (assignment) s = assignment[1]!.trim();
  return s.replace(/\.$/, "").trim();
}

function readRational(text: string): Rational | null {
  let s = stripAnswerLatex(text).replace(/\s+/g, "");
  while (/^\(.*\)$/.test(s) && balanced(s.slice(1, -1))) s = s.slice(1, -1);
  let sign = 1n;
  if (s.startsWith("-")) {
    sign = -1n;
    s = s.slice(1);
  } else if (s.startsWith("+")) s = s.slice(1);
  const frac = /^\\frac\{([^{}]+)\}\{([^{}]+)\}$/.exec(s) ?? /^\\frac(\d)(\d)$/.exec(s);
  const slash = /^([^/]+)\/([^/]+)$/.exec(s);
  const parts = frac ?? slash;
  if (parts) {
    const top = readRational(parts[1]!);
    const bottom = readRational(parts[2]!);
    if (top === null || bottom === null || bottom.num === 0n) return null;
    return normalise({ num: sign * top.num * bottom.den, den: top.den * bottom.num, exact: top.exact && bottom.exact });
  }
  const cleaned = /^\d{1,3}(,\d{3})+(\.\d+)?$/.test(s) ? s.replace(/,/g, "") : s;
  const decimal = /^(\d*)(?:\.(\d+))?$/.exec(cleaned);
  if (!decimal || (decimal[1] === "" && decimal[2] === undefined)) return null;
  const whole = decimal[1] || "0";
  const fraction = decimal[2] ?? "";
  const den = 10n ** BigInt(fraction.length);
  return normalise({ num: sign * (BigInt(whole) * den + BigInt(fraction || "0")), den, exact: true });
}

function balanced(s: string): boolean {
  let depth = 0;
  for (const c of s) {
    if (c === "(") depth++;
    else if (c === ")" && --depth < 0) return false;
  }
  return depth === 0;
}

function normalise(r: Rational): Rational {
  if (r.den < 0n) return { ...r, num: -r.num, den: -r.den };
  return r;
}
