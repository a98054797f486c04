import type { ChatMessage } from "../../shared/llm.js";
import type { LlmBackend } from "../llm/LlmBackend.js";
import type { EnvSession } from "../sandbox/EnvSession.js";
import { extractPythonCode } from "../selfplay/extractCode.js";
import { mapWithConcurrency } from "../util/mapWithConcurrency.js";
import { deriveSeed } from "../util/seededRandom.js";
import { scoreInterval } from "./scoreInterval.js";
import type { CodeEvalItem, CodeEvalReport } from "./CodeEvalReport.js";
import type { CodeProblem } from "./CodeProblem.js";
import { runCodeTests } from "./runCodeTests.js";

export interface EvaluateCodeOptions {
  suite: string;
  /** Opens the sandbox the programs run in. */
  open: (code: string) => Promise<EnvSession>;
  /** Samples per problem. Defaults to 1 (the reference's `n_samples_per_prompt`). */
  samples?: number;
  /** Defaults to 0.2, top-p 0.95 (the reference's LiveCodeBench settings). */
  temperature?: number;
  topP?: number;
  /** Defaults to 16384 (the reference's). */
  maxTokens?: number;
  /** Problems in flight at once. Defaults to the backend's parallelism. */
  concurrency?: number;
  /** Defaults to 0. */
  seed?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

/** The question as the model is asked it: the statement, the starter code, and where to put the program. */
export function codeMessages(problem: CodeProblem): ChatMessage[] {
  const parts = [problem.question];
  if (problem.starterCode.trim() !== "") parts.push(`Begin from this code:\n\`\`\`python\n${problem.starterCode}\n\`\`\``);
  parts.push("Give your whole program in one ```python ... ``` block.");
  return [{ role: "user", content: parts.join("\n\n") }];
}

/** Asks for k programs per problem and runs each against the problem's tests in the sandbox. */
export async function evaluateCode(backend: LlmBackend, problems: readonly CodeProblem[], options: EvaluateCodeOptions): Promise<CodeEvalReport> {
  const k = options.samples ?? 1;
  let done = 0;
  const work = problems.flatMap((problem) => Array.from({ length: k }, (_, sample) => ({ problem, sample })));
  const outcomes = await mapWithConcurrency(work, options.concurrency ?? backend.parallelism, async ({ problem, sample }) => {
    const reply = await backend.chat({
      messages: codeMessages(problem),
      sampling: { temperature: options.temperature ?? 0.2, topP: options.topP ?? 0.95, maxTokens: options.maxTokens ?? 16384, seed: deriveSeed(options.seed ?? 0, "code", problem.index, sample) },
      signal: options.signal,
    });
    if (reply.finishReason === "abort") throw options.signal?.reason ?? new Error("evaluation aborted");
    const program = extractPythonCode(reply.text, { block: "last" });
    const result = program === null ? { passed: false, why: "no ```python block in the reply" } : await runCodeTests(program, problem.tests, options.open);
    options.onProgress?.(++done, work.length);
    return result;
  });
  const items = problems.map((problem, i): CodeEvalItem => {
    const mine = outcomes.slice(i * k, (i + 1) * k);
    return { index: problem.index, id: problem.id, passed: mine.filter((o) => o.passed).length, samples: k, why: mine.find((o) => !o.passed)?.why ?? null };
  });
  const scores = items.map((item) => item.passed / item.samples);
  const passAt1 = scores.length === 0 ? 0 : scores.reduce((a, b) => a + b, 0) / scores.length;
  return { suite: options.suite, kind: "code", n: items.length, samples: k, passAt1, interval: scoreInterval(scores, { seed: options.seed ?? 0 }), items };
}
