import type { QuestionItem } from "./QuestionItem.js";
import { mathEquivalent } from "./mathEquivalent.js";
import { parseNumber } from "./parseNumber.js";

/** Whether a predicted answer is the item's expected one, compared the way its kind needs. */
export function answersMatch(item: Pick<QuestionItem, "expected" | "kind" | "choices">, predicted: string | null): boolean {
  if (predicted === null) return false;
  if (item.kind === "choice") return choiceLetterOf(predicted, item.choices ?? []) === item.expected;
  if (mathEquivalent(predicted, item.expected)) return true;
  const expectedNumber = parseNumber(unwrapText(item.expected));
  const predictedNumber = parseNumber(unwrapText(predicted));
  if (expectedNumber !== null && predictedNumber !== null) {
    return Math.abs(expectedNumber - predictedNumber) <= 1e-6 * Math.max(1, Math.abs(expectedNumber));
  }
  if (item.kind === "numeric") return false;
  return normaliseText(predicted) === normaliseText(item.expected);
}

/** A predicted choice as a letter: "B", "(b)", "B.", "\text{B}", or the text of one of the choices. */
function choiceLetterOf(predicted: string, choices: string[]): string | null {
  const cleaned = unwrapText(predicted).trim().replace(/^\(|\)$|\.$/g, "").trim();
  if (/^[A-Za-z]$/.test(cleaned)) return cleaned.toUpperCase();
  const index = choices.findIndex((choice) => normaliseText(choice) === normaliseText(cleaned));
  return index === -1 ? null : String.fromCharCode(65 + index);
}

function unwrapText(text: string): string {
  return text.replace(/\\text\{([^}]*)\}/g, "$1");
}

function normaliseText(text: string): string {
  return unwrapText(text).trim().replace(/\s+/g, " ").replace(/\.$/, "").toLowerCase();
}
