import { statSync } from "node:fs";
import type { LlmBackend } from "../llm/LlmBackend.js";
import type { EnvSession } from "../sandbox/EnvSession.js";
import type { EnvironmentEvalReport } from "./EnvironmentEvalReport.js";
import { evaluateEnvironments } from "./evaluateEnvironments.js";
import { evaluateQuestions, referenceSampling } from "./evaluateQuestions.js";
import type { QuestionEvalReport } from "./QuestionEvalReport.js";
import { readEnvironmentSuite } from "./readEnvironmentSuite.js";
import { readQuestionSuite } from "./readQuestionSuite.js";
import { SuiteFormatError } from "./SuiteFormatError.js";

export type SuiteEvalReport = QuestionEvalReport | EnvironmentEvalReport;

export interface EvaluateSuiteOptions {
  /** A JSONL question file, or a folder of `.py` environments. */
  suitePath: string;
  /** The suite's name in the report. Defaults to `suitePath`. */
  suiteName?: string;
  /** Questions (or environments) used. Defaults to all. */
  limit?: number;
  /** Opens a sandboxed environment; required for environment suites. */
  openEnvironment?: (code: string) => Promise<EnvSession>;
  /** Defaults to 0. */
  seed?: number;
  /** Question suites: generation budget per answer. Defaults to 1024. */
  maxTokens?: number;
  /** Question suites: samples per question, averaged. Defaults to the reference's count for the format (AIME 64, GPQA 8, else 1). */
  samples?: number;
  /** Question suites: sampling temperature. Defaults to the reference's for the format (AIME 1.0, GPQA 0.7, else 0). */
  temperature?: number;
  /** Environment suites: plays per environment. Defaults to 4. */
  playsPerEnvironment?: number;
  /** Environment suites: defaults to 25. */
  maxTurns?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

/** Whether a suite path names an environment folder (else a JSONL question file). */
export function isEnvironmentSuite(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    throw new SuiteFormatError(`${path}: the suite does not exist (expected a .jsonl question file or a folder of .py environments)`);
  }
}

/** Evaluates a backend on a held-out suite of either kind. */
export async function evaluateSuite(backend: LlmBackend, options: EvaluateSuiteOptions): Promise<SuiteEvalReport> {
  const suite = options.suiteName ?? options.suitePath;
  if (isEnvironmentSuite(options.suitePath)) {
    if (!options.openEnvironment) throw new TypeError("evaluateSuite: an environment suite needs openEnvironment");
    return evaluateEnvironments(backend, readEnvironmentSuite(options.suitePath, options.limit), {
      suite,
      open: options.openEnvironment,
      playsPerEnvironment: options.playsPerEnvironment,
      maxTurns: options.maxTurns,
      seed: options.seed,
      signal: options.signal,
      onProgress: options.onProgress,
    });
  }
  const { items, format } = readQuestionSuite(options.suitePath, { limit: options.limit });
  const sampling = referenceSampling(format);
  return evaluateQuestions(backend, items, {
    suite,
    ...sampling,
    ...(options.samples === undefined ? {} : { samples: options.samples }),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    maxTokens: options.maxTokens,
    seed: options.seed,
    signal: options.signal,
    onProgress: options.onProgress,
  });
}

/** The number a suite is judged by: accuracy for questions, mean return for environments. */
export function suiteScore(report: SuiteEvalReport): number {
  return "kind" in report ? report.meanReturn : report.accuracy;
}
