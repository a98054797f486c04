import { readFileSync } from "node:fs";
import type { QuestionItem, QuestionSuiteFormat } from "./QuestionItem.js";
import { parseNumber } from "./parseNumber.js";
import { SuiteFormatError } from "./SuiteFormatError.js";

export interface QuestionSuite {
  path: string;
  format: QuestionSuiteFormat;
  items: QuestionItem[];
}

export interface ReadSuiteOptions {
  /** Read only the first this many questions. Defaults to all. */
  limit?: number;
}

type Fields = Record<string, unknown>;

/**
 * Reads a JSONL question suite. The format is detected from the first question's fields and every
 * other line must fit it: GSM8K (`question`, `answer` ending `#### <number>`), multiple choice
 * (`question`, `choices`, `answer` as a letter or 0-based index), or boxed QA (`problem` or
 * `question`, `answer`).
 */
export function readQuestionSuite(path: string, options: ReadSuiteOptions = {}): QuestionSuite {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new SuiteFormatError(`${path}: cannot read the suite: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const limit = options.limit ?? Infinity;
  const items: QuestionItem[] = [];
  let format: QuestionSuiteFormat | null = null;
  const lines = text.split("\n");
  for (let lineIndex = 0; lineIndex < lines.length && items.length < limit; lineIndex++) {
    const line = lines[lineIndex]!.trim();
    if (line === "") continue;
    const where = `${path}:${lineIndex + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new SuiteFormatError(`${where}: not valid JSON: ${(error as Error).message}`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw new SuiteFormatError(`${where}: expected a JSON object per line`);
    const fields = value as Fields;
    format ??= detectFormat(fields, where);
    items.push(readItem(format, fields, items.length, where));
  }
  if (format === null) throw new SuiteFormatError(`${path}: the suite holds no questions`);
  return { path, format, items };
}

function detectFormat(fields: Fields, where: string): QuestionSuiteFormat {
  if ("choices" in fields) return "choice";
  if (typeof fields.question === "string" && typeof fields.answer === "string" && /####/.test(fields.answer)) return "gsm8k";
  if (("problem" in fields || "question" in fields) && "answer" in fields) return "boxed";
  throw new SuiteFormatError(
    `${where}: cannot tell the suite format from the fields ${Object.keys(fields).join(", ") || "(none)"}; expected GSM8K {question, answer "... #### n"}, boxed QA {problem|question, answer} or multiple choice {question, choices, answer}`,
  );
}

function readItem(format: QuestionSuiteFormat, fields: Fields, index: number, where: string): QuestionItem {
  const text = (key: string): string => {
    const value = fields[key];
    if (typeof value !== "string" || value.trim() === "") throw new SuiteFormatError(`${where}: ${key}: expected a non-empty string (this is a ${format} suite), got ${JSON.stringify(value) ?? "nothing"}`);
    return value;
  };
  if (format === "gsm8k") {
    const answer = text("answer");
    const match = /####\s*(.+?)\s*$/.exec(answer);
    if (!match || parseNumber(match[1]!) === null) throw new SuiteFormatError(`${where}: answer: expected a GSM8K answer ending "#### <number>", got ${JSON.stringify(answer.slice(-60))}`);
    return { index, question: text("question"), expected: match[1]!, kind: "numeric" };
  }
  if (format === "choice") {
    const choices = fields.choices;
    if (!Array.isArray(choices) || choices.length < 2 || choices.length > 26 || !choices.every((c) => typeof c === "string" || typeof c === "number")) {
      throw new SuiteFormatError(`${where}: choices: expected an array of 2 to 26 strings, got ${JSON.stringify(choices)}`);
    }
    return { index, question: text("question"), expected: choiceLetter(fields.answer, choices.length, where), kind: "choice", choices: choices.map(String) };
  }
  const question = typeof fields.problem === "string" ? text("problem") : text("question");
  const answer = fields.answer;
  if (typeof answer !== "string" && typeof answer !== "number") throw new SuiteFormatError(`${where}: answer: expected a string or a number, got ${JSON.stringify(answer)}`);
  const expected = String(answer).trim();
  if (expected === "") throw new SuiteFormatError(`${where}: answer: expected a non-empty answer`);
  return { index, question, expected, kind: parseNumber(expected) === null ? "text" : "numeric" };
}

function choiceLetter(answer: unknown, count: number, where: string): string {
  if (typeof answer === "number" && Number.isInteger(answer) && answer >= 0 && answer < count) return String.fromCharCode(65 + answer);
  if (typeof answer === "string") {
    const letter = answer.trim().toUpperCase();
    if (/^[A-Z]$/.test(letter) && letter.charCodeAt(0) - 65 < count) return letter;
    if (/^\d+$/.test(letter) && Number(letter) < count) return String.fromCharCode(65 + Number(letter));
  }
  const last = String.fromCharCode(64 + count);
  throw new SuiteFormatError(`${where}: answer: expected a letter A-${last} or an index 0-${count - 1}, got ${JSON.stringify(answer)}`);
}
