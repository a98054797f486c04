/** One question's outcome (the `items` of `spade eval --json`). */
export interface QuestionEvalItem {
  index: number;
  expected: string;
  /** The extracted answer, or null when the reply had none. */
  predicted: string | null;
  /** With several samples: true when at least one sample was right. */
  correct: boolean;
  /** With several samples only: the fraction of samples that were right. */
  score?: number;
  /** With several samples only: every sample's extracted answer. */
  predictions?: (string | null)[];
}

/**
 * `spade eval --json` on a question suite: exactly these fields. With k samples per question
 * (`samples` > 1), `accuracy` is avg@k (the mean over questions x samples, the paper's number),
 * `correct` counts the questions at least one sample solved, and `passAtK` is correct / n.
 */
export interface QuestionEvalReport {
  suite: string;
  n: number;
  correct: number;
  accuracy: number;
  /** Present when more than one sample per question was drawn. */
  samples?: number;
  passAtK?: number;
  /** The 95% interval (`scoreInterval`: Wilson's for items scored 0 or 1, else the bootstrap) of `accuracy` over questions. */
  interval: [number, number];
  items: QuestionEvalItem[];
}
