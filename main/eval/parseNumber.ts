/**
 * Reads an answer as a number, ignoring what does not change its value in GSM8K-style answers:
 * thousands commas, a `$`, spaces and a trailing period. Null when it is not a plain number.
 */
export function parseNumber(text: string): number | null {
  const cleaned = text.replace(/[$,\s]/g, "").replace(/\.$/, "");
  if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(cleaned)) return null;
  const value = Number(cleaned);
  return Number.isFinite(value) ? value : null;
}
