import { readFileSync, statSync } from "node:fs";
import type { LlmBackend } from "../llm/LlmBackend.js";
import type { EnvSession } from "../sandbox/EnvSession.js";
import type { EnvironmentEvalReport } from "./EnvironmentEvalReport.js";
import { evaluateEnvironments } from "./evaluateEnvironments.js";
import { evaluateQuestions, referenceSampling } from "./evaluateQuestions.js";
import type { QuestionEvalReport } from "./QuestionEvalReport.js";
import { readEnvironmentSuite } from "./readEnvironmentSuite.js";
import { readQuestionSuite } from "./readQuestionSuite.js";
import { SuiteFormatError } from "./SuiteFormatError.js";
import type { CodeEvalReport } from "./CodeEvalReport.js";
import { evaluateCode } from "./evaluateCode.js";
import { isCodeSuiteLine, readCodeSuite } from "./readCodeSuite.js";
import { isLibrarySuitePath, readLibrarySuite } from "./readLibrarySuite.js";
import { LibraryHost } from "../library/LibraryHost.js";
import { formatLibraryProblem, parseLibraryProblem } from "../library/LibraryProblem.js";
import { resolveTrainerPython } from "../training/resolveTrainerPython.js";
import { deriveSeed } from "../util/seededRandom.js";
import { evaluateToolUse } from "./evaluateToolUse.js";
import { isToolUseSuiteLine, readToolUseSuite } from "./readToolUseSuite.js";
import type { ToolUseEvalReport } from "./ToolUseEvalReport.js";
import type { AceBenchEvalReport } from "./AceBenchEvalReport.js";
import { evaluateAceBench } from "./evaluateAceBench.js";
import { isAceBenchSuiteLine, readAceBenchSuite } from "./readAceBenchSuite.js";
import { evaluateTau2 } from "./evaluateTau2.js";
import { isTau2SuitePath, readTau2Suite } from "./readTau2Suite.js";
import type { Tau2EvalReport } from "./Tau2EvalReport.js";

export type SuiteEvalReport = QuestionEvalReport | EnvironmentEvalReport | CodeEvalReport | ToolUseEvalReport | AceBenchEvalReport | Tau2EvalReport;

export interface EvaluateSuiteOptions {
  /** A JSONL question file (questions, LiveCodeBench-style code problems, or BFCL-style multi-turn items), a folder of `.py` environments, or a `.json` library suite (GEM games, reasoning-gym tasks). */
  suitePath: string;
  /** The suite's name in the report. Defaults to `suitePath`. */
  suiteName?: string;
  /** Questions (or environments) used. Defaults to all. */
  limit?: number;
  /** Opens a sandboxed environment; required for environment and code suites (see `suiteNeedsSandbox`). */
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
  /** Tool-use and ACEBench-Agent suites: the interpreter that runs the benchmark's API classes. Defaults to the trainer's. */
  python?: string;
  /** ACEBench-Agent and tau2 suites: the model that plays the user (the reference: gpt-4o for ACEBench, gpt-4.1 for tau2, which also judges tau2's natural-language assertions). Defaults to the evaluated backend. */
  userBackend?: LlmBackend;
  /** ACEBench-Agent and tau2 suites: the user simulator's name in the report. Defaults to "the evaluated model", or the user backend's name. */
  userSimulator?: string;
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

/** Whether a JSONL suite's first line is a code problem. */
function isCodeSuite(path: string): boolean {
  return firstLineIs(path, isCodeSuiteLine);
}

/** Whether a suite file's first line is a BFCL-style multi-turn item (BFCL's files are JSON lines named `.json`). */
function isToolUseSuite(path: string): boolean {
  return !isEnvironmentSuite(path) && firstLineIs(path, (fields) => isToolUseSuiteLine(fields) && !isAceBenchSuiteLine(fields));
}

/** Whether a suite file's first line is an ACEBench-Agent item. */
function isAceBenchSuite(path: string): boolean {
  return !isEnvironmentSuite(path) && firstLineIs(path, isAceBenchSuiteLine);
}

function firstLineIs(path: string, test: (fields: Record<string, unknown>) => boolean): boolean {
  const first = readFileSync(path, "utf8").split("\n").find((line) => line.trim() !== "");
  if (first === undefined) return false;
  try {
    const fields = JSON.parse(first) as unknown;
    return typeof fields === "object" && fields !== null && test(fields as Record<string, unknown>);
  } catch {
    return false;
  }
}

/** Whether evaluating a suite runs code in the sandbox: a folder of environments, or code problems. */
export function suiteNeedsSandbox(path: string): boolean {
  return isEnvironmentSuite(path) || (!isLibrarySuitePath(path) && !isTau2SuitePath(path) && isCodeSuite(path));
}

/** Evaluates a backend on a held-out suite of any kind. */
export async function evaluateSuite(backend: LlmBackend, options: EvaluateSuiteOptions): Promise<SuiteEvalReport> {
  const suite = options.suiteName ?? options.suitePath;
  if (!isEnvironmentSuite(options.suitePath) && isTau2SuitePath(options.suitePath)) {
    const tau2 = readTau2Suite(options.suitePath);
    // A limit given to the evaluation caps every domain's tasks.
    if (options.limit !== undefined) tau2.tasks = tau2.tasks.map((spec) => ({ ...spec, limit: Math.min(spec.limit ?? Infinity, options.limit!) }));
    return evaluateTau2(backend, tau2, {
      suite,
      python: options.python ?? resolveTrainerPython(),
      ...(options.userBackend ? { userBackend: options.userBackend } : {}),
      ...(options.userSimulator ? { userSimulator: options.userSimulator } : {}),
      signal: options.signal,
      onProgress: options.onProgress,
    });
  }
  if (isAceBenchSuite(options.suitePath)) {
    return evaluateAceBench(backend, readAceBenchSuite(options.suitePath, options.limit), {
      suite,
      python: options.python ?? resolveTrainerPython(),
      ...(options.userBackend ? { userBackend: options.userBackend } : {}),
      ...(options.userSimulator ? { userSimulator: options.userSimulator } : {}),
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
      seed: options.seed,
      signal: options.signal,
      onProgress: options.onProgress,
    });
  }
  if (isToolUseSuite(options.suitePath)) {
    return evaluateToolUse(backend, readToolUseSuite(options.suitePath, options.limit), {
      suite,
      python: options.python ?? resolveTrainerPython(),
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
      seed: options.seed,
      signal: options.signal,
      onProgress: options.onProgress,
    });
  }
  if (!isEnvironmentSuite(options.suitePath) && isLibrarySuitePath(options.suitePath)) return evaluateLibrarySuite(backend, suite, options);
  if (!isEnvironmentSuite(options.suitePath) && isCodeSuite(options.suitePath)) {
    if (!options.openEnvironment) throw new TypeError("evaluateSuite: a code suite needs openEnvironment (its programs run in the sandbox)");
    return evaluateCode(backend, readCodeSuite(options.suitePath, options.limit), {
      suite,
      open: options.openEnvironment,
      ...(options.samples === undefined ? {} : { samples: options.samples }),
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
      seed: options.seed,
      signal: options.signal,
      onProgress: options.onProgress,
    });
  }
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

/** A library suite: every environment of the set played `episodes` times, each play a fresh instance from the suite's seed. */
async function evaluateLibrarySuite(backend: LlmBackend, suite: string, options: EvaluateSuiteOptions): Promise<EnvironmentEvalReport> {
  const spec = readLibrarySuite(options.suitePath);
  const host = await LibraryHost.start({ library: spec.library, python: spec.library.python ?? resolveTrainerPython() });
  try {
    const names = host.environments.slice(0, options.limit ?? Infinity);
    const files = await Promise.all(names.map(async (name) => ({ file: name, code: formatLibraryProblem(await host.problem(name, 0, deriveSeed(options.seed ?? 0, "library suite", name))) })));
    return await evaluateEnvironments(backend, files, {
      suite,
      open: (code) => host.open(parseLibraryProblem(code)!),
      playsPerEnvironment: options.playsPerEnvironment ?? spec.episodes,
      maxTurns: options.maxTurns ?? spec.maxTurns,
      temperature: options.temperature ?? spec.temperature,
      maxTokens: options.maxTokens ?? spec.maxTokens,
      seed: options.seed,
      signal: options.signal,
      onProgress: options.onProgress,
    });
  } finally {
    await host.dispose();
  }
}

/** The number a suite is judged by: accuracy for questions and tool use (ACEBench: end-to-end; tau2: pass@1), mean return for environments, pass@1 for code. */
export function suiteScore(report: SuiteEvalReport): number {
  if (!("kind" in report) || report.kind === "tool-use" || report.kind === "acebench" || report.kind === "tau2") return report.accuracy;
  return report.kind === "code" ? report.passAt1 : report.meanReturn;
}
