import type { LlmBackend } from "../llm/LlmBackend.js";
import { mapWithConcurrency } from "../util/mapWithConcurrency.js";
import { deriveSeed } from "../util/seededRandom.js";
import { answersMatch } from "./answersMatch.js";
import { extractAnswer } from "./extractAnswer.js";
import type { QuestionEvalItem, QuestionEvalReport } from "./QuestionEvalReport.js";
import type { QuestionItem } from "./QuestionItem.js";
import { questionMessages } from "./questionMessages.js";

export interface EvaluateQuestionsOptions {
  /** The suite's name in the report. */
  suite: string;
  /** Defaults to 0 (greedy: the score does not depend on luck). */
  temperature?: number;
  /** Defaults to 1024. */
  maxTokens?: number;
  /** Questions in flight at once. Defaults to the backend's parallelism. */
  concurrency?: number;
  /** Per-question sampling seeds derive from it. Defaults to 0. */
  seed?: number;
  signal?: AbortSignal;
  /** Called as each question is answered. Defaults to none. */
  onProgress?: (done: number, total: number) => void;
}

/** Asks the model every question and scores its answers (see `extractAnswer` and `answersMatch`). */
export async function evaluateQuestions(backend: LlmBackend, items: readonly QuestionItem[], options: EvaluateQuestionsOptions): Promise<QuestionEvalReport> {
  let done = 0;
  const results = await mapWithConcurrency(items, options.concurrency ?? backend.parallelism, async (item): Promise<QuestionEvalItem> => {
    const reply = await backend.chat({
      messages: questionMessages(item),
      sampling: { temperature: options.temperature ?? 0, maxTokens: options.maxTokens ?? 1024, seed: deriveSeed(options.seed ?? 0, "eval", item.index) },
      signal: options.signal,
    });
    if (reply.finishReason === "abort") throw options.signal?.reason ?? new Error("evaluation aborted");
    const predicted = extractAnswer(reply.text, item.kind === "numeric")?.answer ?? null;
    options.onProgress?.(++done, items.length);
    return { index: item.index, expected: item.expected, predicted, correct: answersMatch(item, predicted) };
  });
  const correct = results.filter((result) => result.correct).length;
  return { suite: options.suite, n: results.length, correct, accuracy: results.length === 0 ? 0 : correct / results.length, items: results };
}
