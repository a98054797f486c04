/** How an expected answer is compared: as a number, as a choice letter, or as normalised text. */
export type AnswerKind = "numeric" | "choice" | "text";

/** The question formats a suite file may hold, detected from its fields. */
export type QuestionSuiteFormat = "gsm8k" | "boxed" | "choice";

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
}
