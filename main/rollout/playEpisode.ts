import { episodeReturn, withHint, type StepResult } from "../../shared/environment.js";
import type { SamplingOptions } from "../../shared/llm.js";
import type { LlmBackend } from "../llm/LlmBackend.js";
import type { EnvSession } from "../sandbox/EnvSession.js";
import { SandboxTimeoutError } from "../sandbox/errors.js";
import { agentSystemPrompt } from "./agentSystemPrompt.js";
import { buildTurnMessages } from "./buildTurnMessages.js";
import { extractBoxedAction } from "./extractAction.js";
import type { RecordedEpisode, RecordedTurn } from "./RecordedEpisode.js";

export interface PlayEpisodeOptions {
  session: EnvSession;
  backend: LlmBackend;
  seed: number;
  /** Appended to the first observation only, as `\n\nHINT: <hint>`. Defaults to none. */
  hint?: string | null;
  /** Turns after which the episode is cut off (truncated). Defaults to 25 (SPADE's runs). */
  maxTurns?: number;
  playIndex?: number;
  canary?: boolean;
  /** Agent sampling; each turn gets its own seed derived from the episode seed. Defaults to temperature 0.6. */
  sampling?: SamplingOptions;
  /** Keep only the last N exchanges in the prompt. Defaults to all of them. */
  historyTurns?: number;
  signal?: AbortSignal;
}

/** Derives the sampling seed of one turn from the episode seed (uint32, reproducible). */
export function turnSeed(episodeSeed: number, turn: number): number {
  return (Math.imul(episodeSeed ^ 0x5bd1e995, 0x01000193) + Math.imul(turn + 1, 0x9e3779b1)) >>> 0;
}

/** Plays one episode of an open environment with the agent model, recording every turn. */
export async function playEpisode(options: PlayEpisodeOptions): Promise<RecordedEpisode> {
  const { session, backend, seed } = options;
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

  let firstObservation: string;
  let resetInfo: RecordedEpisode["resetInfo"];
  try {
    const reset = await session.reset(seed);
    firstObservation = hint === null ? reset.observation : withHint(reset.observation, hint);
    resetInfo = reset.info;
  } catch (error) {
    return episode({ error: `reset(seed=${seed}) failed: ${describe(error)}`, timedOut: isTimeout(error) });
  }

  const system = agentSystemPrompt(session.kind, session.tools);
  const observations = [firstObservation];
  const replies: string[] = [];
  let last: StepResult | undefined;
  for (let index = 0; index < maxTurns; index++) {
    const messages = buildTurnMessages(system, observations, replies, options.historyTurns);
    const requestStart = performance.now();
    let reply;
    try {
      reply = await backend.chat({
        messages,
        sampling: { temperature: 0.6, ...options.sampling, seed: turnSeed(seed, index) },
        signal: options.signal,
      });
    } catch (error) {
      return episode({ firstObservation, resetInfo, error: `agent model failed on turn ${index}: ${describe(error)}` });
    }
    const latencyMs = performance.now() - requestStart;
    const action = session.kind === "text" ? extractBoxedAction(reply.text) : reply.text.trim();
    let result: StepResult;
    try {
      result = await session.step(action);
    } catch (error) {
      return episode({ firstObservation, resetInfo, error: `step() failed on turn ${index}: ${describe(error)}`, timedOut: isTimeout(error) });
    }
    turns.push({
      index,
      messages: index === 0 ? messages : null,
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
    last = result;
    if (result.terminated || result.truncated) break;
    replies.push(reply.text);
    observations.push(result.observation);
  }
  return episode({ firstObservation, resetInfo, return: episodeReturn(last) });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isTimeout(error: unknown): boolean {
  return error instanceof SandboxTimeoutError;
}
