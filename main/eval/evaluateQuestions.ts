import type { LlmBackend } from "../llm/LlmBackend.js";
import { mapWithConcurrency } from "../util/mapWithConcurrency.js";
import { deriveSeed } from "../util/seededRandom.js";
import { answersMatch } from "./answersMatch.js";
import { scoreInterval } from "./scoreInterval.js";
import { extractAnswer } from "./extractAnswer.js";
import type { QuestionEvalItem, QuestionEvalReport } from "./QuestionEvalReport.js";
import type { QuestionItem, QuestionSuiteFormat } from "./QuestionItem.js";
import { questionMessages } from "./questionMessages.js";

export interface EvaluateQuestionsOptions {
  /** The suite's name in the report. */
  suite: string;
  /** Defaults to 0 (greedy: the score does not depend on luck). */
  temperature?: number;
  topP?: number;
  topK?: number;
  /** Samples per question, averaged (avg@k). Defaults to 1. */
  samples?: number;
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

/** Asks the model every question (k times with `samples`) and scores its answers (see `extractAnswer` and `answersMatch`). */
export async function evaluateQuestions(backend: LlmBackend, items: readonly QuestionItem[], options: EvaluateQuestionsOptions): Promise<QuestionEvalReport> {
  const k = options.samples ?? 1;
  if (!Number.isInteger(k) || k < 1) throw new TypeError(`evaluateQuestions: samples must be a positive integer, got ${k}`);
  let done = 0;
  const answer = async (item: QuestionItem, sample: number): Promise<string | null> => {
    const reply = await backend.chat({
      messages: questionMessages(item),
      sampling: {
        temperature: options.temperature ?? 0,
        ...(options.topP === undefined ? {} : { topP: options.topP }),
        ...(options.topK === undefined ? {} : { topK: options.topK }),
        maxTokens: options.maxTokens ?? 1024,
        seed: k === 1 ? deriveSeed(options.seed ?? 0, "eval", item.index) : deriveSeed(options.seed ?? 0, "eval", item.index, sample),
      },
      signal: options.signal,
    });
    if (reply.finishReason === "abort") throw options.signal?.reason ?? new Error("evaluation aborted");
    return extractAnswer(reply.text, item.kind === "numeric", item.kind === "choice")?.answer ?? null;
  };
  const work = items.flatMap((item) => Array.from({ length: k }, (_, sample) => ({ item, sample })));
  const predictions = await mapWithConcurrency(work, options.concurrency ?? backend.parallelism, async ({ item, sample }) => {
    const predicted = await answer(item, sample);
    options.onProgress?.(++done, work.length);
    return predicted;
  });
  const results = items.map((item, i): QuestionEvalItem => {
    const mine = predictions.slice(i * k, (i + 1) * k);
    const right = mine.map((predicted) => answersMatch(item, predicted));
    const result: QuestionEvalItem = { index: item.index, expected: item.expected, predicted: mine[0] ?? null, correct: right.some(Boolean) };
    if (k > 1) Object.assign(result, { score: right.filter(Boolean).length / k, predictions: mine });
    return result;
  });
  const correct = results.filter((result) => result.correct).length;
  const n = results.length;
  const accuracy = n === 0 ? 0 : k === 1 ? correct / n : results.reduce((sum, result) => sum + result.score!, 0) / n;
  const interval = scoreInterval(results.map((result) => result.score ?? (result.correct ? 1 : 0)), { seed: options.seed ?? 0 });
  return { suite: options.suite, n, correct, accuracy, ...(k > 1 ? { samples: k, passAtK: n === 0 ? 0 : correct / n } : {}), interval, items: results };
}

/**
 * The reference's sampling for its held-out formats: AIME 64 samples at temperature 1.0, top-p
 * 0.95, top-k 20; GPQA-Diamond 8 samples at 0.7, top-p 0.95 (eval_offline/configs/games.yaml).
 * Other formats: one greedy answer.
 */
export function referenceSampling(format: QuestionSuiteFormat): Pick<EvaluateQuestionsOptions, "samples" | "temperature" | "topP" | "topK"> {
  if (format === "aime") return { samples: 64, temperature: 1.0, topP: 0.95, topK: 20 };
  if (format === "gpqa") return { samples: 8, temperature: 0.7, topP: 0.95 };
  return { samples: 1, temperature: 0 };
}
