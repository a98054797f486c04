/** One question's outcome (the `items` of `spade eval --json`). */
export interface QuestionEvalItem {
  index: number;
  expected: string;
  /** The extracted answer, or null when the reply had none. */
  predicted: string | null;
  correct: boolean;
}

/** `spade eval --json` on a question suite: exactly these fields. */
export interface QuestionEvalReport {
  suite: string;
  n: number;
  correct: number;
  accuracy: number;
  items: QuestionEvalItem[];
}
