import type { ReadonlyDb, WritableDb } from "../store/DatabaseHandle.js";
import { insertEvalResult, listEvalResults, type EvalResult } from "../store/queries/evalResults.js";
import { scoreInterval } from "./scoreInterval.js";
import type { SuiteEvalReport } from "./evaluateSuite.js";

/** Stores an evaluation of the base model (adapterId null) or an adapter; returns the result id. */
export function storeEvalReport(db: WritableDb, adapterId: number | null, suiteKey: string, report: SuiteEvalReport): number {
  if ("kind" in report && report.kind === "tau2") {
    return insertEvalResult(db, { adapterId, suite: suiteKey, n: report.n, correct: report.items.filter((item) => item.passed > 0).length, accuracy: report.accuracy, items: report.items });
  }
  if ("kind" in report && report.kind === "code") {
    return insertEvalResult(db, { adapterId, suite: suiteKey, n: report.n, correct: report.items.filter((item) => item.passed > 0).length, accuracy: report.passAt1, items: report.items });
  }
  if ("kind" in report && (report.kind === "tool-use" || report.kind === "acebench")) {
    return insertEvalResult(db, { adapterId, suite: suiteKey, n: report.n, correct: report.correct, accuracy: report.accuracy, items: report.items });
  }
  if ("kind" in report) {
    return insertEvalResult(db, { adapterId, suite: suiteKey, n: report.n, meanReturn: report.meanReturn, winRate: report.winRate, items: report.items });
  }
  return insertEvalResult(db, { adapterId, suite: suiteKey, n: report.n, correct: report.correct, accuracy: report.accuracy, items: report.items });
}

/** The newest stored evaluation of this model on this suite with this many items, if any. */
export function latestEvalResult(db: ReadonlyDb, adapterId: number | null, suiteKey: string, n: number): EvalResult | null {
  const results = listEvalResults(db, { adapterId, suite: suiteKey }).filter((result) => result.n === n);
  return results.at(-1) ?? null;
}

/** A stored result's score: accuracy (pass@1 for code) for question and code suites, mean return for environment suites. */
export function storedScore(result: EvalResult): number | null {
  return result.accuracy ?? result.meanReturn;
}

/**
 * A stored result's per-item scores, from its items: a question's fraction of right samples (or
 * 1/0), a code problem's passing samples / samples, an environment's mean return. Null when the
 * items do not say.
 */
export function storedItemScores(result: EvalResult): number[] | null {
  if (!Array.isArray(result.items)) return null;
  const scores = (result.items as Record<string, unknown>[]).map((item) => {
    if (typeof item.passed === "number" && typeof item.samples === "number" && item.samples > 0) return item.passed / item.samples;
    if (typeof item.meanReturn === "number") return item.meanReturn;
    if (typeof item.score === "number") return item.score;
    if (typeof item.correct === "boolean") return item.correct ? 1 : 0;
    return Number.NaN;
  });
  return scores.some(Number.isNaN) ? null : scores;
}

/** A stored result's 95% interval (`scoreInterval`: Wilson's for items scored 0 or 1, else the bootstrap) over its items, or null when the items do not say. */
export function storedInterval(result: EvalResult): [number, number] | null {
  const scores = storedItemScores(result);
  return scores === null ? null : scoreInterval(scores);
}
