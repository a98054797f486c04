import type { ReadonlyDb, WritableDb } from "../store/DatabaseHandle.js";
import { insertEvalResult, listEvalResults, type EvalResult } from "../store/queries/evalResults.js";
import type { SuiteEvalReport } from "./evaluateSuite.js";

/** Stores an evaluation of the base model (adapterId null) or an adapter; returns the result id. */
export function storeEvalReport(db: WritableDb, adapterId: number | null, suiteKey: string, report: SuiteEvalReport): number {
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

/** A stored result's score: accuracy for question suites, mean return for environment suites. */
export function storedScore(result: EvalResult): number | null {
  return result.accuracy ?? result.meanReturn;
}
