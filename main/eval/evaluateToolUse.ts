import type { ChatMessage, ToolCall, ToolSpec } from "../../shared/llm.js";
import type { LlmBackend } from "../llm/LlmBackend.js";
import { LibraryWorker } from "../library/LibraryWorker.js";
import { resourcePath } from "../paths.js";
import { callArguments, parseTextToolCalls } from "../rollout/toolCalls.js";
import { mapWithConcurrency } from "../util/mapWithConcurrency.js";
import { deriveSeed } from "../util/seededRandom.js";
import { scoreInterval } from "./scoreInterval.js";
import type { ToolUseItem, ToolUseSuite } from "./ToolUseItem.js";
import type { ToolUseEvalItem, ToolUseEvalReport } from "./ToolUseEvalReport.js";

/** BFCL's limit on model steps in one turn (`MAXIMUM_STEP_LIMIT`); past it the item is forced to quit. */
export const bfclStepLimit = 20;
/** BFCL's user message for a turn that only adds withheld functions. */
export const bfclAddedFunctionsPrompt = "I have updated some more functions you can choose from. What about now?";

export interface EvaluateToolUseOptions {
  suite: string;
  /** The interpreter that runs the benchmark's API classes (the user's, with bfcl_eval installed). */
  python: string;
  /** Defaults to 0 (the reference's BFCL temperature). */
  temperature?: number;
  /** Token budget of each model step. Defaults to 4096. */
  maxTokens?: number;
  /** Deadline of each call into the API classes, in ms. Defaults to 30000. */
  callTimeoutMs?: number;
  /** Items in flight at once. Defaults to the backend's parallelism. */
  concurrency?: number;
  /** The worker script. Defaults to resources/python/spade_tool_use.py. */
  script?: string;
  /** Defaults to 0. */
  seed?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

/**
 * BFCL-v4 multi-turn evaluation: each item's turns played with native tool calls through the
 * backend (the model calls tools until it answers without one, at most `bfclStepLimit` steps a
 * turn), the calls executed on the item's API instances in the user's interpreter, and after every
 * turn with ground truth BFCL's two checks: the model's instances in the same state as the ground
 * truth's (state check), and every result of the turn's ground-truth calls among the results of
 * the model's calls so far (response check).
 */
export async function evaluateToolUse(backend: LlmBackend, suite: ToolUseSuite, options: EvaluateToolUseOptions): Promise<ToolUseEvalReport> {
  let done = 0;
  const items = await mapWithConcurrency(suite.items, options.concurrency ?? backend.parallelism, async (item) => {
    const outcome = await playItem(backend, suite, item, options);
    options.onProgress?.(++done, suite.items.length);
    return outcome;
  });
  const scores = items.map((item) => (item.correct ? 1 : 0));
  const correct = scores.reduce<number>((a, b) => a + b, 0);
  return { suite: options.suite, kind: "tool-use", n: items.length, correct, accuracy: items.length === 0 ? 0 : correct / items.length, interval: scoreInterval(scores, { seed: options.seed ?? 0 }), items };
}

async function playItem(backend: LlmBackend, suite: ToolUseSuite, item: ToolUseItem, options: EvaluateToolUseOptions): Promise<ToolUseEvalItem> {
  const calls: string[][][] = [];
  const fail = (failure: NonNullable<ToolUseEvalItem["failure"]>, turn: number | null, why: string): ToolUseEvalItem => ({ index: item.index, id: item.id, correct: false, failure, turn, why, calls });
  const timeout = options.callTimeoutMs ?? 30_000;
  let worker: LibraryWorker;
  try {
    worker = await LibraryWorker.start({ python: options.python, script: options.script ?? resourcePath("python", "spade_tool_use.py"), startTimeoutMs: 60_000 });
  } catch (error) {
    return fail("error", null, `the tool-use worker did not start with ${options.python}: ${(error as Error).message}`);
  }
  try {
    const loaded = await worker.call("load", { classesDir: suite.classesDir, docsDir: suite.docsDir, initialConfig: item.initialConfig, involvedClasses: item.involvedClasses, longContext: item.longContext }, 60_000);
    const allTools = toolsFromDocs(loaded.tools as Record<string, unknown>[]);
    const withheld = new Set(Object.values(item.missedFunction).flat());
    const missingDocs = [...withheld].filter((name) => !allTools.some((tool) => tool.name === name));
    if (allTools.length === 0 || missingDocs.length > 0) return fail("error", null, `no function docs for ${missingDocs.length > 0 ? missingDocs.join(", ") : item.involvedClasses.join(", ")} in ${suite.docsDir}`);
    const messages: ChatMessage[] = [];
    const modelResults: string[] = [];
    for (let turn = 0; turn < item.turns.length; turn++) {
      for (const name of item.missedFunction[String(turn)] ?? []) withheld.delete(name);
      const added = (item.missedFunction[String(turn)] ?? []).length > 0;
      messages.push(...(item.turns[turn]!.length === 0 && added ? [{ role: "user" as const, content: bfclAddedFunctionsPrompt }] : item.turns[turn]!));
      const tools = allTools.filter((tool) => !withheld.has(tool.name));
      const steps: string[][] = [];
      calls.push(steps);
      for (let step = 0; ; step++) {
        if (step >= bfclStepLimit) return fail("steps", turn, `more than ${bfclStepLimit} steps in turn ${turn}`);
        const reply = await backend.chat({
          messages: [...messages],
          tools,
          sampling: { temperature: options.temperature ?? 0, maxTokens: options.maxTokens ?? 4096, seed: deriveSeed(options.seed ?? 0, "tool use", item.index, turn, step) },
          signal: options.signal,
        });
        if (reply.finishReason === "abort") throw options.signal?.reason ?? new Error("evaluation aborted");
        const made: ToolCall[] = reply.toolCalls && reply.toolCalls.length > 0 ? reply.toolCalls : parseTextToolCalls(reply.text, step);
        messages.push({ role: "assistant", content: reply.text, ...(made.length > 0 ? { toolCalls: made } : {}) });
        if (made.length === 0) break;
        const executed = await worker.call("execute", { side: "model", calls: made.map((call) => ({ name: call.name, arguments: callArguments(call) })) }, timeout);
        const results = executed.results as string[];
        made.forEach((call, i) => messages.push({ role: "tool", content: results[i] ?? "", toolCallId: call.id }));
        modelResults.push(...results);
        steps.push(made.map((call) => callString(call.name, callArguments(call))));
      }
      const truthCalls = item.groundTruth[turn]!;
      if (truthCalls.length === 0) continue;
      if (steps.length === 0) return fail("empty", turn, `no function call in turn ${turn}, which has ground truth`);
      const truthResults = (await worker.call("execute", { side: "truth", calls: truthCalls }, timeout)).results as string[];
      const differences = (await worker.call("compare", {}, timeout)).differences as Record<string, Record<string, { model: string; truth: string }>>;
      const differing = Object.entries(differences).flatMap(([cls, attributes]) => Object.entries(attributes).map(([name, d]) => `${cls}.${name}: model ${d.model}, ground truth ${d.truth}`));
      if (differing.length > 0) return fail("state", turn, `after turn ${turn} the instances differ from the ground truth's: ${differing.join("; ")}`);
      const missing = missingResults(truthResults, modelResults);
      if (missing.length > 0) return fail("response", turn, `the model's results so far lack ground truth results of turn ${turn}: ${missing.map((m) => JSON.stringify(m)).join(", ")}`);
    }
    return { index: item.index, id: item.id, correct: true, failure: null, turn: null, why: null, calls };
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return fail("error", null, (error as Error).message);
  } finally {
    worker.kill();
  }
}

/** BFCL's unordered subsequence: each expected result matched to a distinct result of the model's. */
export function missingResults(expected: readonly string[], actual: readonly string[]): string[] {
  const left = [...actual];
  return expected.filter((result) => {
    const at = left.indexOf(result);
    if (at < 0) return true;
    left.splice(at, 1);
    return false;
  });
}

/** A call as BFCL writes it: `name(key=value, ...)` (values as JSON). */
export function callString(name: string, args: Record<string, unknown>): string {
  return `${name}(${Object.entries(args).map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(", ")})`;
}

/** BFCL's function docs as tools: its Python type names (`dict`, `float`, `tuple`, `any`) as JSON Schema's. */
export function toolsFromDocs(docs: readonly Record<string, unknown>[]): ToolSpec[] {
  return docs.map((doc) => ({
    name: String(doc.name),
    ...(typeof doc.description === "string" ? { description: doc.description } : {}),
    parameters: jsonSchemaTypes(doc.parameters ?? { type: "object", properties: {} }) as Record<string, unknown>,
  }));
}

const typeNames: Record<string, string | null> = { dict: "object", float: "number", tuple: "array", any: null };

function jsonSchemaTypes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(jsonSchemaTypes);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === "type" && typeof inner === "string" && inner in typeNames) {
      if (typeNames[inner] !== null) out.type = typeNames[inner];
    } else out[key] = key === "properties" ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).map(([k, v]) => [k, jsonSchemaTypes(v)])) : jsonSchemaTypes(inner);
  }
  return out;
}
