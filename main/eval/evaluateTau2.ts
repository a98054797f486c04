import type { LlmBackend } from "../llm/LlmBackend.js";
import { LibraryWorker } from "../library/LibraryWorker.js";
import { resourcePath } from "../paths.js";
import { scoreInterval } from "./scoreInterval.js";
import { ChatCompletionsBridge } from "./ChatCompletionsBridge.js";
import type { Tau2DomainResult, Tau2EvalItem, Tau2EvalReport } from "./Tau2EvalReport.js";
import type { Tau2Spec, Tau2Suite } from "./Tau2Suite.js";

/** tau2 terminations the reference counts as errors (against pass@1, and in `errors`). */
export const tau2ErrorTerminations = new Set(["infrastructure_error", "unexpected_error", "too_many_errors", "timeout", "agent_error", "user_error"]);

/** A tau2 simulation as the worker reports it. */
export interface Tau2Simulation {
  taskId: string;
  trial: number | null;
  termination: string | null;
  reward: number;
}

export interface EvaluateTau2Options {
  suite: string;
  /** The interpreter with tau2-bench installed. */
  python: string;
  /** Plays tau2's user and judges its natural-language assertions (the reference: gpt-4.1 and gpt-4o-mini). Defaults to the evaluated backend. */
  userBackend?: LlmBackend;
  /** The user simulator's name in the report. Defaults to "the evaluated model" (or the user backend's name). */
  userSimulator?: string;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

/**
 * tau2-bench as the reference runs it: per domain, tau2's own `run_tasks` (its LLM agent, user
 * simulator, environments and evaluator with natural-language assertions) in a worker of the user's
 * interpreter, the evaluated model and the user simulator served to it on a loopback
 * OpenAI-compatible endpoint; pass@1 counted as the reference counts it (`passAt1`).
 */
export async function evaluateTau2(backend: LlmBackend, suite: Tau2Suite, options: EvaluateTau2Options): Promise<Tau2EvalReport> {
  const bridge = await ChatCompletionsBridge.start({ agent: backend, user: options.userBackend ?? backend });
  const domains: Tau2DomainResult[] = [];
  const items: Tau2EvalItem[] = [];
  try {
    for (const [done, spec] of suite.tasks.entries()) {
      const outcome = await runDomain(spec, suite, bridge.baseUrl, options);
      const scored = passAt1(spec, suite.numTrials, outcome.tasks, outcome.simulations);
      domains.push(scored.domain);
      items.push(...scored.items);
      options.onProgress?.(done + 1, suite.tasks.length);
    }
  } finally {
    await bridge.close();
  }
  const simulations = domains.reduce((a, d) => a + d.simulations, 0);
  const passed = domains.reduce((a, d) => a + d.passed, 0);
  return {
    suite: options.suite,
    kind: "tau2",
    n: items.length,
    trials: suite.numTrials,
    simulations,
    passed,
    errors: domains.reduce((a, d) => a + d.errors, 0),
    accuracy: simulations > 0 ? passed / simulations : 0,
    interval: scoreInterval(items.map((item) => item.passed / item.samples)),
    domains,
    userSimulator: options.userSimulator ?? (options.userBackend ? options.userBackend.name : "the evaluated model"),
    items,
  };
}

async function runDomain(spec: Tau2Spec, suite: Tau2Suite, baseUrl: string, options: EvaluateTau2Options): Promise<{ tasks: string[]; simulations: Tau2Simulation[] }> {
  const worker = await LibraryWorker.start({ python: options.python, script: resourcePath("python", "spade_tau2.py"), startTimeoutMs: 60_000, memoryMb: 16_384 });
  const abort = () => worker.kill();
  options.signal?.addEventListener("abort", abort);
  try {
    const model = (name: string, args: Record<string, unknown>) => ({ model: `openai/${name}`, args: { api_base: baseUrl, api_key: "spade", num_retries: 0, ...args } });
    const answer = await worker.call(
      "run",
      {
        path: suite.path,
        dataDir: suite.dataDir,
        domain: spec.domain,
        split: spec.split,
        limit: spec.limit,
        numTrials: suite.numTrials,
        maxSteps: suite.maxSteps,
        maxConcurrency: suite.maxConcurrency,
        agent: model("agent", { temperature: suite.agent.temperature, top_p: suite.agent.topP, top_k: suite.agent.topK, max_tokens: suite.agent.maxTokens }),
        user: model("user", { temperature: suite.user.temperature, max_tokens: suite.user.maxTokens }),
        judge: model("user", {}),
      },
      // The reference's per-domain deadline: max(300 s, 30 s a step).
      Math.max(300, suite.maxSteps * 30) * 1000,
    );
    return { tasks: answer.tasks as string[], simulations: answer.simulations as Tau2Simulation[] };
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason ?? error;
    throw new Error(`tau2 ${spec.domain}/${spec.split}: ${(error as Error).message}`, { cause: error });
  } finally {
    options.signal?.removeEventListener("abort", abort);
    worker.kill();
  }
}

/**
 * The reference's count for one domain: a simulation passes when it did not end in an error and its
 * reward is within 1e-6 of 1; the denominator is tasks x trials, a simulation that never came back
 * counting as an error.
 */
export function passAt1(spec: Tau2Spec, trials: number, tasks: readonly string[], simulations: readonly Tau2Simulation[]): { domain: Tau2DomainResult; items: Tau2EvalItem[] } {
  const byTask = new Map(tasks.map((id) => [id, { passed: 0, errors: 0, seen: 0 }]));
  for (const sim of simulations) {
    const task = byTask.get(sim.taskId);
    if (!task) continue;
    task.seen++;
    if (sim.termination !== null && tau2ErrorTerminations.has(sim.termination)) task.errors++;
    else if (Math.abs(sim.reward - 1) <= 1e-6) task.passed++;
  }
  const items = [...byTask].map(([id, t]) => ({ id: `${spec.domain}/${id}`, passed: t.passed, samples: trials, errors: t.errors + Math.max(0, trials - t.seen) }));
  const total = tasks.length * trials;
  const passed = items.reduce((a, i) => a + i.passed, 0);
  const errors = items.reduce((a, i) => a + i.errors, 0);
  return {
    domain: { label: `${spec.domain}_${spec.split}`, domain: spec.domain, split: spec.split, tasks: tasks.length, simulations: total, passed, errors, passAt1: total > 0 ? passed / total : 0, passAt1Clean: total - errors > 0 ? passed / (total - errors) : 0 },
    items,
  };
}
