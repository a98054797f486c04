import type { ChatMessage } from "../../shared/llm.js";
import type { LlmBackend } from "../llm/LlmBackend.js";
import { LibraryWorker } from "../library/LibraryWorker.js";
import { resourcePath } from "../paths.js";
import { mapWithConcurrency } from "../util/mapWithConcurrency.js";
import { deriveSeed } from "../util/seededRandom.js";
import type { AceBenchEvalItem, AceBenchEvalReport } from "./AceBenchEvalReport.js";
import type { AceBenchItem, AceBenchSuite } from "./AceBenchItem.js";
import { aceBenchProcessAccuracy, aceBenchStateErrors } from "./aceBenchChecks.js";
import { scoreInterval } from "./scoreInterval.js";

/** The reference's `max_dialog_turns` for ACEBench (`eval_offline/configs/tool_use.yaml`). */
export const aceBenchDialogTurns = 40;
/** ACEBench's agent and user sampling: its role classes are built with temperature 0.001 and 1000 tokens (the suite's own temperature does not reach them). */
export const aceBenchTemperature = 0.001;
export const aceBenchMaxTokens = 1000;
const finish = "finish conversation";

export interface EvaluateAceBenchOptions {
  suite: string;
  /** The interpreter that runs the checkout's API classes. */
  python: string;
  /** Plays the user in multi_turn items (the reference uses gpt-4o). Defaults to the evaluated backend. */
  userBackend?: LlmBackend;
  /** The user simulator's name in the report. Defaults to "the evaluated model" (or the user backend's name). */
  userSimulator?: string;
  /** Dialogue turns before an item stops. Defaults to 40 (`aceBenchDialogTurns`). */
  maxDialogTurns?: number;
  /** The agent's temperature. Defaults to 0.001 (`aceBenchTemperature`, which the user simulator always keeps). */
  temperature?: number;
  /** Token budget of each agent reply. Defaults to 1000 (`aceBenchMaxTokens`, which the user simulator always keeps). */
  maxTokens?: number;
  /** Deadline of each call into the worker, in ms. Defaults to 30000. */
  callTimeoutMs?: number;
  /** Items in flight at once. Defaults to the backend's parallelism. */
  concurrency?: number;
  /** Defaults to 0. */
  seed?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

interface Message {
  sender: "user" | "agent" | "execution";
  recipient: "user" | "agent" | "execution";
  /** What the role said (execution: its results). */
  message: string | unknown[];
  /** The message as it enters the history text. */
  text: string;
}

/**
 * ACEBench-Agent evaluation as ACEBench runs it. The agent sees one system prompt and one user
 * message holding the function docs and the dialogue so far as text, and answers either a call
 * list `[Api(key='value', ...)]`, executed on the item's API instances in the user's interpreter,
 * or words. multi_step: the task is the first user line; every agent reply goes to execution (an
 * undecodable one gets the checkout's "use the known conditions" answer) and the history holds
 * the user line and the execution results. multi_turn: a simulated user (its prompt and opening
 * line from the checkout) holds the task; replies that decode go to execution, others to the user.
 * Either ends when a message after the second turn says "finish conversation", or at the turn
 * limit; then the saved attributes are checked against the possible answer (end-to-end accuracy)
 * and the executed replies against the milestones (process accuracy).
 */
export async function evaluateAceBench(backend: LlmBackend, suite: AceBenchSuite, options: EvaluateAceBenchOptions): Promise<AceBenchEvalReport> {
  let done = 0;
  const items = await mapWithConcurrency(suite.items, options.concurrency ?? backend.parallelism, async (item) => {
    const outcome = await playItem(backend, suite, item, options);
    options.onProgress?.(++done, suite.items.length);
    return outcome;
  });
  const scores = items.map((item) => (item.correct ? 1 : 0));
  const processes = items.map((item) => item.process);
  const correct = scores.reduce<number>((a, b) => a + b, 0);
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  return {
    suite: options.suite,
    kind: "acebench",
    n: items.length,
    correct,
    accuracy: mean(scores),
    interval: scoreInterval(scores, { seed: options.seed ?? 0 }),
    processAccuracy: mean(processes),
    processInterval: scoreInterval(processes, { seed: options.seed ?? 0 }),
    userSimulator: options.userSimulator ?? (options.userBackend ? options.userBackend.name : "the evaluated model"),
    items,
  };
}

async function playItem(backend: LlmBackend, suite: AceBenchSuite, item: AceBenchItem, options: EvaluateAceBenchOptions): Promise<AceBenchEvalItem> {
  const calls: string[] = [];
  let turns = 0;
  const outcome = (why: string | null, correct: boolean): AceBenchEvalItem => ({ index: item.index, id: item.id, correct, process: aceBenchProcessAccuracy(item.mileStone, calls, correct), why, calls, turns });
  const timeout = options.callTimeoutMs ?? 30_000;
  let worker: LibraryWorker;
  try {
    worker = await LibraryWorker.start({ python: options.python, script: resourcePath("python", "spade_acebench.py"), startTimeoutMs: 60_000 });
  } catch (error) {
    return outcome(`the ACEBench worker did not start with ${options.python}: ${(error as Error).message}`, false);
  }
  try {
    const loaded = await worker.call(
      "load",
      {
        root: suite.root,
        category: item.category,
        language: suite.language,
        // ACEBench builds its multi_step agent without a language, so it gets the zh prompt in either language.
        agentLanguage: item.category === "multi_step" ? "zh" : suite.language,
        question: item.question,
        functions: item.functions,
        initialConfig: item.initialConfig,
        involvedClasses: item.involvedClasses,
      },
      60_000,
    );
    // The user simulator keeps ACEBench's own sampling; the options set the evaluated agent's.
    const sampling = (role: "agent" | "user", turn: number) => ({
      temperature: role === "agent" ? (options.temperature ?? aceBenchTemperature) : aceBenchTemperature,
      maxTokens: role === "agent" ? (options.maxTokens ?? aceBenchMaxTokens) : aceBenchMaxTokens,
      seed: deriveSeed(options.seed ?? 0, "acebench", role, item.index, turn),
    });
    const ask = async (model: LlmBackend, messages: ChatMessage[], role: "agent" | "user", turn: number) => {
      const reply = await model.chat({ messages, sampling: sampling(role, turn), signal: options.signal });
      if (reply.finishReason === "abort") throw options.signal?.reason ?? new Error("evaluation aborted");
      return reply.text.trim();
    };
    const agent = async (history: string, turn: number) => {
      const prompt = await worker.call("agent_prompt", { history }, timeout);
      return ask(backend, [{ role: "system", content: String(prompt.system) }, { role: "user", content: String(prompt.user) }], "agent", turn);
    };
    const execute = async (message: string): Promise<Message> => {
      const executed = await worker.call("execute", { message }, timeout);
      return { sender: "execution", recipient: "agent", message: executed.results as string | unknown[], text: String(executed.text) };
    };
    const multiTurn = item.category === "multi_turn";
    const userMessages: ChatMessage[] = [];
    const simulate = async (turn: number) => {
      const reply = await ask(options.userBackend ?? backend, [...userMessages], "user", turn);
      userMessages.push({ role: "assistant", content: reply });
      return reply;
    };
    let opening = item.question;
    if (multiTurn) {
      userMessages.push({ role: "system", content: String(loaded.userSystem) }, { role: "user", content: String(loaded.userGreeting) });
      opening = await simulate(-1);
    }
    const history: Message[] = [{ sender: "user", recipient: "agent", message: opening, text: opening }];
    const prefix = { user: "user:", agent: "agent:", execution: multiTurn ? "execution:" : "execution result:" };
    let historyText = "";
    for (let index = 0; index < (options.maxDialogTurns ?? aceBenchDialogTurns); index++) {
      const last = history.at(-1)!;
      let next: Message;
      if (multiTurn) {
        historyText += `${prefix[last.sender]}${last.text}\n`;
        if (last.recipient === "user") {
          userMessages.push({ role: "user", content: withoutRolePrefix(last.text) });
          const said = await simulate(index);
          next = { sender: "user", recipient: "agent", message: said, text: said };
        } else if (last.recipient === "agent") {
          const reply = await agent(historyText, index);
          const decodes = (await worker.call("decodes", { message: reply }, timeout)).decodes === true;
          next = { sender: "agent", recipient: decodes ? "execution" : "user", message: reply, text: reply };
        } else {
          calls.push(last.text);
          next = await execute(last.text);
        }
      } else if (index === 0 || last.sender === "execution") {
        historyText += `${prefix[last.sender]}${last.text}\n`;
        const reply = await agent(historyText, index);
        next = { sender: "agent", recipient: /^\[.*?\]/.test(reply) ? "execution" : "user", message: reply, text: reply };
      } else {
        calls.push(last.text);
        next = await execute(last.text);
      }
      history.push(next);
      turns = index + 1;
      if (index > 1 && (typeof next.message === "string" ? next.message.includes(finish) : next.message.includes(finish))) break;
    }
    const state = (await worker.call("state", {}, timeout)).state as Record<string, Record<string, unknown>>[];
    const errors = aceBenchStateErrors(item.groundTruth, state);
    return outcome(errors.length === 0 ? null : errors.join("; "), errors.length === 0);
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return outcome((error as Error).message, false);
  } finally {
    worker.kill();
  }
}

/** ACEBench's user simulator drops a leading `user:` or `agent:` from what it is told. */
function withoutRolePrefix(text: string): string {
  return text.startsWith("user:") ? text.slice(5) : text.startsWith("agent:") ? text.slice(6) : text;
}
