import { episodeReturn, withHint, type StepResult } from "../../shared/environment.js";
import type { ChatMessage, ChatResult, SamplingOptions, ThinkingMode, ToolCall, ToolSpec } from "../../shared/llm.js";
import type { ChatRequest, LlmBackend } from "../llm/LlmBackend.js";
import { PromptTooLongError } from "../llm/PromptTooLongError.js";
import type { EnvSession } from "../sandbox/EnvSession.js";
import { EnvironmentCodeError, EnvironmentContractError, SandboxTimeoutError } from "../sandbox/errors.js";
import { agentSystemPrompt, frameFirstObservation } from "./agentSystemPrompt.js";
import { buildTurnMessages } from "./buildTurnMessages.js";
import { extractBoxedAction, extractFirstBoxedAction } from "./extractAction.js";
import type { RecordedEpisode, RecordedTurn } from "./RecordedEpisode.js";
import { playKey, type PlayTrace } from "./PlayTrace.js";
import { nativeToolAction, parseTextToolCalls, toolCallText, toolSpecs } from "./toolCalls.js";

/**
 * How the agent is asked and how its replies become actions. Every default is the reference's
 * (spade-rl/spade `orchestrator.play_game_async` and its tool-use twin); the other values keep
 * this project's earlier protocol available as named deviations.
 */
export interface AgentProtocol {
  /**
   * "reference": no system prompt; a game's first user message frames the game, gives the
   * observation and asks to reason and box the answer; later observations follow as plain user
   * messages; a tool-use task starts with the bare observation. "workbench": a system prompt states
   * the protocol (and lists the tools as text). Defaults to "reference".
   */
  messages?: "reference" | "workbench";
  /** Which `\boxed{}` is the action: "first" (without braces inside, the reference) or "last" (balanced). Defaults to "first". */
  action?: "first" | "last";
  /** A reply that stops on the token budget (finishReason "length") ends the episode, truncated. Defaults to true. */
  endOnLength?: boolean;
  /**
   * What an exception in `step()` scores: a number ends the episode there with that reward
   * (terminated; -1 in the reference); null ends it as an errored play that returns 0 (the
   * workbench rule). Defaults to -1.
   */
  stepErrorReward?: number | null;
  /**
   * Tool-use environments: offer the tools through the model's own chat template
   * (`ChatRequest.tools`), send each call's result back as a `tool` message, several calls per
   * turn. false: the workbench's text protocol (tools listed in the system prompt). Defaults to true.
   */
  nativeTools?: boolean;
  /** Thinking control for the agent's calls. Defaults to "off" (the launchers' `enable_thinking: false`). */
  thinking?: ThinkingMode;
  /**
   * Tool use: a reply holding a `<tool_call>` that cannot be parsed is marked `malformedToolCall`
   * in its turn's info (not trained) and a format note is appended to the next observation, as the
   * tool-use launcher's SPADE_MASK_MALFORMED_TOOLCALL=1. Defaults to false.
   */
  maskMalformedToolCalls?: boolean;
}

/** The note after a malformed tool call (the reference's wording of the canonical call). */
export const malformedToolCallNote = '[FORMAT] Your previous <tool_call> could not be parsed. Emit exactly: <tool_call>{"name": "<tool_name>", "arguments": {<args>}}</tool_call>';

export interface PlayEpisodeOptions {
  session: EnvSession;
  backend: LlmBackend;
  seed: number;
  /** Appended to the first observation only, as `\n\nHINT: <hint>`. Defaults to none. */
  hint?: string | null;
  /** Agent replies after which the episode is cut off (truncated). Defaults to 25 (SPADE's runs). */
  maxTurns?: number;
  playIndex?: number;
  canary?: boolean;
  /** Agent sampling; each turn gets its own seed derived from the episode seed. Defaults to the launchers' temperature 0.6, top-p 0.95, top-k 20. */
  sampling?: SamplingOptions;
  /** Keep only the last N exchanges in a game's prompt (the first observation always stays). Defaults to the full history, up to the context length. */
  historyTurns?: number;
  /** Defaults to the reference protocol, see `AgentProtocol`. */
  protocol?: AgentProtocol;
  signal?: AbortSignal;
  /** Told each moment of the play (reset answered, each request and answer, each step). Defaults to none. */
  trace?: PlayTrace;
  /** The place in the backend's line of the request of each turn (see `ChatRequest.priority`), asked as the request goes. Defaults to the turn index: later turns first. */
  priority?: (turn: number) => number;
}

/** The most characters of `info` (as JSON, reset included) an episode stores; a step's info past it is dropped and says so. */
export const EPISODE_INFO_BUDGET_CHARS = 262_144;

/** Derives the sampling seed of one turn from the episode seed (uint32, reproducible). */
export function turnSeed(episodeSeed: number, turn: number): number {
  return (Math.imul(episodeSeed ^ 0x5bd1e995, 0x01000193) + Math.imul(turn + 1, 0x9e3779b1)) >>> 0;
}

/** Why the episode stopped early, for the caller. */
type Stop = { error: string; timedOut?: boolean } | null;

/** Plays one episode of an open environment with the agent model, recording every turn with the exact prompt it was sent. */
export async function playEpisode(options: PlayEpisodeOptions): Promise<RecordedEpisode> {
  const { session, backend, seed } = options;
  const protocol = { messages: "reference", action: "first", endOnLength: true, stepErrorReward: -1, nativeTools: true, thinking: "off", maskMalformedToolCalls: false, ...options.protocol } as const satisfies AgentProtocol;
  const maxTurns = options.maxTurns ?? 25;
  const hint = options.hint ?? null;
  const startedAt = Date.now();
  const turns: RecordedTurn[] = [];
  const episode = (fields: Partial<RecordedEpisode>): RecordedEpisode => ({
    seed,
    hinted: hint !== null,
    playIndex: options.playIndex ?? 0,
    canary: options.canary ?? false,
    firstObservation: "",
    resetInfo: {},
    tools: null,
    turns,
    return: 0,
    totalTokens: turns.reduce((sum, turn) => sum + turn.promptTokens + turn.completionTokens, 0),
    adapter: backend.adapter,
    error: null,
    timedOut: false,
    startedAt,
    finishedAt: Date.now(),
    ...fields,
  });

  // One key per episode: a router that routes on it keeps the conversation on one replica's prefix cache.
  const routingKey = playKey(seed, options.playIndex ?? 0, hint !== null, options.canary ?? false);
  const mark = options.trace ? (what: Parameters<PlayTrace>[1]) => options.trace!(routingKey, what, performance.now()) : () => undefined;
  let firstObservation: string;
  let resetInfo: RecordedEpisode["resetInfo"];
  try {
    const reset = await session.reset(seed);
    mark("observed");
    firstObservation = hint === null ? reset.observation : withHint(reset.observation, hint);
    resetInfo = reset.info;
  } catch (error) {
    return episode({ error: `reset(seed=${seed}) failed: ${describe(error)}`, timedOut: isTimeout(error) });
  }

  const ask = async (index: number, messages: ChatMessage[], tools?: ToolSpec[]): Promise<{ reply: ChatResult; latencyMs: number } | { stop: Stop }> => {
    const request: ChatRequest = {
      messages,
      sampling: { temperature: 0.6, topP: 0.95, topK: 20, ...options.sampling, seed: turnSeed(seed, index) },
      signal: options.signal,
      thinking: protocol.thinking,
      routingKey,
      // Later turns first while the backend is full: an open play finishes before new plays start theirs.
      priority: options.priority ? options.priority(index) : index,
      ...(tools ? { tools } : {}),
    };
    const started = performance.now();
    mark("asking");
    try {
      const reply = await backend.chat(request);
      mark("answered");
      return { reply, latencyMs: performance.now() - started };
    } catch (error) {
      // The reference ends the episode truncated (return 0) when the context fills: a normal, trained
      // play. A first prompt that cannot fit at all is a setting to fix: an errored play.
      if (error instanceof PromptTooLongError) return { stop: index === 0 ? { error: `context full on turn 0: ${error.message}` } : null };
      return { stop: { error: `agent model failed on turn ${index}: ${describe(error)}` } };
    }
  };
  /** One step; an exception scores `stepErrorReward` and ends the episode (or errors it, when null). */
  const step = async (index: number, action: string): Promise<{ result: StepResult } | { failed: StepResult | null; stop: NonNullable<Stop> }> => {
    try {
      const result = await session.step(action);
      mark("stepped");
      return { result };
    } catch (error) {
      const stop = { error: `step() failed on turn ${index}: ${describe(error)}`, timedOut: isTimeout(error) };
      const scored = protocol.stepErrorReward !== null && isEnvironmentError(error);
      const failed = scored ? { observation: `Error: ${describe(error)}`, reward: protocol.stepErrorReward as number, terminated: true, truncated: false, info: { stepError: true } } : null;
      return { failed, stop };
    }
  };
  let infoChars = JSON.stringify(resetInfo).length;
  /** A step's info within the episode's storage budget, or a note that it was dropped (info costs no tokens, so it is budgeted here). */
  const budgeted = (info: StepResult["info"]): StepResult["info"] => {
    const size = JSON.stringify(info).length;
    if (infoChars + size <= EPISODE_INFO_BUDGET_CHARS) {
      infoChars += size;
      return info;
    }
    return { infoCut: `info of ${size} characters dropped: the episode's info budget of ${EPISODE_INFO_BUDGET_CHARS} characters is spent` };
  };
  const record = (index: number, messages: ChatMessage[], reply: ChatResult, latencyMs: number, action: string, stepped: StepResult): void => {
    const result = { ...stepped, info: budgeted(stepped.info) };
    turns.push({
      index,
      // What was sent, in full: the store keeps only what is not the plain continuation.
      messages,
      rawReply: reply.text,
      reasoning: reply.reasoning,
      action,
      ...result,
      tokenIds: reply.tokenIds ?? null,
      tokenProbs: reply.tokenProbs ?? null,
      promptTokenIds: reply.promptTokenIds ?? null,
      tokenLogprobs: reply.tokenLogprobs ?? null,
      sampling: reply.samplingUsed ?? null,
      latencyMs,
      promptTokens: reply.promptTokens,
      completionTokens: reply.completionTokens,
    });
  };
  const lengthStop = (reply: ChatResult) => protocol.endOnLength && reply.finishReason === "length";
  const cutOff: StepResult = { observation: "", reward: 0, terminated: false, truncated: true, info: { stop: "length" } };

  const native = session.kind === "tool" && protocol.nativeTools;
  let last: StepResult | undefined;
  let stop: Stop = null;

  if (native) {
    const tools = toolSpecs(session.tools ?? []);
    const messages: ChatMessage[] = [{ role: "user", content: firstObservation }];
    for (let index = 0; index < maxTurns; index++) {
      const sent = [...messages];
      const asked = await ask(index, sent, tools);
      if ("stop" in asked) {
        stop = asked.stop;
        break;
      }
      const { reply, latencyMs } = asked;
      const calls: ToolCall[] = reply.toolCalls && reply.toolCalls.length > 0 ? reply.toolCalls : parseTextToolCalls(reply.text, index);
      messages.push({ role: "assistant", content: reply.text, ...(calls.length > 0 ? { toolCalls: calls } : {}) });
      if (lengthStop(reply)) {
        record(index, sent, reply, latencyMs, reply.text.trim(), cutOff);
        last = cutOff;
        break;
      }
      const answered = /<answer>[\s\S]*?<\/answer>/.test(reply.text);
      if (answered || calls.length === 0) {
        // An answer, or neither answer nor call (the environment answers with a format error). An
        // answer is never a malformed call, whatever <tool_call> text it holds: the reference checks
        // `<answer>` first (orchestrator.py) and masks only a reply without one.
        const malformed = protocol.maskMalformedToolCalls && !answered && calls.length === 0 && reply.text.includes("<tool_call>");
        const stepped = await step(index, reply.text);
        if (!("result" in stepped)) {
          if (stepped.failed) record(index, sent, reply, latencyMs, reply.text, (last = stepped.failed));
          stop = stepped.stop;
          break;
        }
        const ended = stepped.result.terminated || stepped.result.truncated;
        const result = malformed
          ? { ...stepped.result, observation: ended ? stepped.result.observation : `${stepped.result.observation}\n\n${malformedToolCallNote}`, info: { ...stepped.result.info, malformedToolCall: true } }
          : stepped.result;
        record(index, sent, reply, latencyMs, reply.text, (last = result));
        if (ended) break;
        messages.push({ role: "user", content: result.observation });
        continue;
      }
      const outputs: string[] = [];
      let result: StepResult = { observation: "", reward: 0, terminated: false, truncated: false, info: {} };
      for (const call of calls) {
        const stepped = await step(index, nativeToolAction(call));
        if (!("result" in stepped)) {
          if (stepped.failed) result = stepped.failed;
          stop = stepped.stop;
          break;
        }
        result = stepped.result;
        outputs.push(result.observation);
        messages.push({ role: "tool", content: result.observation, toolCallId: call.id });
        if (result.terminated || result.truncated) break;
      }
      const combined: StepResult = { ...result, observation: outputs.join("\n\n"), info: { ...result.info, toolCalls: calls.map((call, i) => ({ id: call.id, name: call.name, arguments: call.arguments, result: outputs[i] ?? null })) } };
      record(index, sent, reply, latencyMs, calls.map(toolCallText).join("\n"), (last = combined));
      if (stop !== null || combined.terminated || combined.truncated) break;
    }
  } else {
    const reference = protocol.messages === "reference";
    const system = reference ? null : agentSystemPrompt(session.kind, session.tools);
    const observations = [reference && session.kind === "text" ? frameFirstObservation(firstObservation, session.framing) : firstObservation];
    const replies: string[] = [];
    for (let index = 0; index < maxTurns; index++) {
      const messages = buildTurnMessages(system, observations, replies, options.historyTurns);
      const asked = await ask(index, messages);
      if ("stop" in asked) {
        stop = asked.stop;
        break;
      }
      const { reply, latencyMs } = asked;
      const action = session.kind !== "text" ? reply.text.trim() : protocol.action === "first" ? extractFirstBoxedAction(reply.text) : extractBoxedAction(reply.text);
      if (lengthStop(reply)) {
        record(index, messages, reply, latencyMs, action, (last = cutOff));
        break;
      }
      const stepped = await step(index, action);
      if (!("result" in stepped)) {
        if (stepped.failed) record(index, messages, reply, latencyMs, action, (last = stepped.failed));
        stop = stepped.stop;
        break;
      }
      record(index, messages, reply, latencyMs, action, (last = stepped.result));
      if (stepped.result.terminated || stepped.result.truncated) break;
      replies.push(reply.text);
      observations.push(stepped.result.observation);
    }
  }
  return episode({ firstObservation, resetInfo, tools: native ? toolSpecs(session.tools ?? []) : null, return: episodeReturn(last), error: stop?.error ?? null, timedOut: stop?.timedOut ?? false });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isTimeout(error: unknown): boolean {
  return error instanceof SandboxTimeoutError;
}

/** An exception of the environment's own code (or a broken contract), as opposed to the sandbox dying. */
function isEnvironmentError(error: unknown): boolean {
  return error instanceof EnvironmentCodeError || error instanceof EnvironmentContractError;
}
