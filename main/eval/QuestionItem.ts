/** How an expected answer is compared: as a number, as a choice letter, or as normalised text. */
export type AnswerKind = "numeric" | "choice" | "text";

import type { ChatMessage } from "../../shared/llm.js";

/**
 * The question formats a suite file may hold, detected from its fields: GSM8K, boxed QA, multiple
 * choice, AIME-style (`prompt` + `label`, the reference's AIME files) and GPQA-style (`Question`,
 * `Correct Answer`, `Incorrect Answer 1..3`, options shuffled).
 */
export type QuestionSuiteFormat = "gsm8k" | "boxed" | "choice" | "aime" | "gpqa";

/** One held-out question. */
export interface QuestionItem {
  /** 0-based position in the suite file (blank lines not counted). */
  index: number;
  question: string;
  /** The reference answer: a number for GSM8K, a letter (A, B, ...) for multiple choice. */
  expected: string;
  kind: AnswerKind;
  /** The options of a multiple-choice question, in letter order. */
  choices?: string[];
  /** The prompt as the suite gives it (AIME-style files carry chat messages); otherwise built from `question`. */
  messages?: ChatMessage[];
}
