import { readFileSync } from "node:fs";
import type { QuestionItem, QuestionSuiteFormat } from "./QuestionItem.js";
import type { ChatMessage } from "../../shared/llm.js";
import { seededRandom } from "../util/seededRandom.js";
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
  /** GPQA-style suites: the seed of the options' shuffle (one fixed order per question). Defaults to 42, the reference's. */
  shuffleSeed?: number;
}

type Fields = Record<string, unknown>;

/**
 * Reads a JSONL question suite. The format is detected from the first question's fields and every
 * other line must fit it: GSM8K (`question`, `answer` ending `#### <number>`), multiple choice
 * (`question`, `choices`, `answer` as a letter or 0-based index), boxed QA (`problem` or
 * `question`, `answer`), AIME-style (`prompt` as chat messages or text, `label`: the reference's
 * AIME files) or GPQA-style (`Question`, `Correct Answer`, `Incorrect Answer 1..3`: the options are
 * shuffled once per question with a seeded draw, and the correct one's new letter is the answer).
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
    items.push(readItem(format, fields, items.length, where, options.shuffleSeed ?? 42));
  }
  if (format === null) throw new SuiteFormatError(`${path}: the suite holds no questions`);
  return { path, format, items };
}

function detectFormat(fields: Fields, where: string): QuestionSuiteFormat {
  if ("Correct Answer" in fields) return "gpqa";
  if ("prompt" in fields && "label" in fields) return "aime";
  if ("choices" in fields) return "choice";
  if (typeof fields.question === "string" && typeof fields.answer === "string" && /####/.test(fields.answer)) return "gsm8k";
  if (("problem" in fields || "question" in fields) && "answer" in fields) return "boxed";
  throw new SuiteFormatError(
    `${where}: cannot tell the suite format from the fields ${Object.keys(fields).join(", ") || "(none)"}; expected GSM8K {question, answer "... #### n"}, boxed QA {problem|question, answer}, multiple choice {question, choices, answer}, AIME-style {prompt, label} or GPQA-style {Question, Correct Answer, Incorrect Answer 1..3}`,
  );
}

function readItem(format: QuestionSuiteFormat, fields: Fields, index: number, where: string, shuffleSeed: number): QuestionItem {
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
  if (format === "gpqa") {
    const correct = text("Correct Answer").trim();
    const wrong = Object.keys(fields).filter((key) => /^Incorrect Answer \d+$/.test(key)).sort().map((key) => text(key).trim());
    if (wrong.length === 0) throw new SuiteFormatError(`${where}: expected at least one "Incorrect Answer 1" field beside "Correct Answer"`);
    const options = [correct, ...wrong];
    const random = seededRandom(shuffleSeed, "gpqa", index);
    const order = options.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    const question = typeof fields.Question === "string" ? text("Question") : text("question");
    return { index, question, expected: String.fromCharCode(65 + order.indexOf(0)), kind: "choice", choices: order.map((i) => options[i]!) };
  }
  if (format === "aime") {
    const label = fields.label;
    if (typeof label !== "string" && typeof label !== "number") throw new SuiteFormatError(`${where}: label: expected the answer as a string or a number, got ${JSON.stringify(label)}`);
    const prompt = fields.prompt;
    const messages = typeof prompt === "string" ? [{ role: "user" as const, content: prompt }] : readMessages(prompt, where);
    const question = messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
    const expected = String(label).trim();
    return { index, question, expected, kind: parseNumber(expected) === null ? "text" : "numeric", messages };
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

function readMessages(value: unknown, where: string): ChatMessage[] {
  const ok = Array.isArray(value) && value.length > 0 && value.every((m) => m && typeof m === "object" && ["system", "user", "assistant"].includes((m as ChatMessage).role) && typeof (m as ChatMessage).content === "string");
  if (!ok) throw new SuiteFormatError(`${where}: prompt: expected a string or a non-empty array of {role: "system"|"user"|"assistant", content: string}, got ${JSON.stringify(value)?.slice(0, 80)}`);
  return (value as ChatMessage[]).map((m) => ({ role: m.role, content: m.content }));
}
