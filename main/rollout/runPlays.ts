import type { SamplingOptions } from "../../shared/llm.js";
import type { LlmBackend } from "../llm/LlmBackend.js";
import type { EnvSession } from "../sandbox/EnvSession.js";
import { SandboxTimeoutError } from "../sandbox/errors.js";
import { mapWithConcurrency } from "../util/mapWithConcurrency.js";
import { playEpisode, type AgentProtocol } from "./playEpisode.js";
import { playKey, type PlayTrace } from "./PlayTrace.js";
import type { RecordedEpisode } from "./RecordedEpisode.js";

/** Opens a fresh instance of the environment under test (one per episode). */
export type OpenEnvironment = () => Promise<EnvSession>;

export interface PlaySpec {
  hinted: boolean;
  playIndex: number;
  canary: boolean;
  seed: number;
}

export interface RunPlaysOptions {
  open: OpenEnvironment;
  backend: LlmBackend;
  specs: PlaySpec[];
  /** The hint for hinted plays. Required when any spec is hinted. */
  hint: string | null;
  /** Defaults to 25. */
  maxTurns?: number;
  sampling?: SamplingOptions;
  historyTurns?: number;
  /** How the agent is asked and its replies read. Defaults to the reference protocol (see `AgentProtocol`). */
  protocol?: AgentProtocol;
  /** Episodes in flight at once. Defaults to the backend's parallelism. */
  concurrency?: number;
  signal?: AbortSignal;
  /** Called as each episode finishes (the loop stores it in its own transaction). */
  onEpisode?: (episode: RecordedEpisode) => void | Promise<void>;
  /** Told each moment of every play (see `PlayMark`). Defaults to none. */
  trace?: PlayTrace;
  /** Each turn's place in the backend's line (see `PlayEpisodeOptions.priority`). Defaults to the turn index. */
  priority?: (turn: number) => number;
}

export interface PlaysOutcome {
  episodes: RecordedEpisode[];
  /** Why the batch was not played, when the canary caught a hanging environment. */
  skipped: string | null;
}

/**
 * Plays a batch of episodes of one environment. Canary specs run first and alone: a canary that
 * times out skips the batch, so a hanging game costs one deadline instead of one per play.
 */
export async function runPlays(options: RunPlaysOptions): Promise<PlaysOutcome> {
  const canaries = options.specs.filter((spec) => spec.canary);
  const rest = options.specs.filter((spec) => !spec.canary);
  if (rest.some((spec) => spec.hinted) && options.hint === null) throw new Error("runPlays: hinted plays need a hint");
  const episodes: RecordedEpisode[] = [];
  const mark = (spec: PlaySpec, what: Parameters<PlayTrace>[1]) => options.trace?.(playKey(spec.seed, spec.playIndex, spec.hinted, spec.canary), what, performance.now());
  const playOne = async (spec: PlaySpec): Promise<RecordedEpisode> => {
    if (options.signal?.aborted) throw options.signal.reason ?? new Error("aborted");
    const { episode, closing } = await playContained(spec);
    episodes.push(episode);
    try {
      // The episode is stored while the sandbox restores its interpreter (the close is on its way).
      await options.onEpisode?.(episode);
      mark(spec, "stored");
    } finally {
      await closing;
    }
    return episode;
  };
  /**
   * One play whose every failure of the environment (its open, or anything done with what it
   * answered) is that play's recorded error: no environment ends the batch, let alone the run.
   */
  const playContained = async (spec: PlaySpec): Promise<{ episode: RecordedEpisode; closing: Promise<void> }> => {
    const startedAt = Date.now();
    let session: EnvSession;
    mark(spec, "opening");
    try {
      session = await options.open();
    } catch (error) {
      if (options.signal?.aborted) throw error;
      return { episode: failedEpisode(spec, options, `open failed: ${describe(error)}`, error instanceof SandboxTimeoutError, startedAt), closing: Promise.resolve() };
    }
    mark(spec, "opened");
    let episode: RecordedEpisode;
    try {
      episode = await playEpisode({
        session,
        backend: options.backend,
        seed: spec.seed,
        hint: spec.hinted ? options.hint : null,
        maxTurns: options.maxTurns,
        playIndex: spec.playIndex,
        canary: spec.canary,
        sampling: options.sampling,
        historyTurns: options.historyTurns,
        protocol: options.protocol,
        signal: options.signal,
        trace: options.trace,
        ...(options.priority ? { priority: options.priority } : {}),
      });
    } catch (error) {
      const closing = session.close().catch(() => undefined);
      if (options.signal?.aborted) {
        await closing;
        throw error;
      }
      episode = failedEpisode(spec, options, `the play failed on what the environment answered: ${describe(error)}`, error instanceof SandboxTimeoutError, startedAt);
      return { episode, closing: closing.then(() => mark(spec, "closed")) };
    }
    // Closed before the episode is stored, not waited for: the sandbox restores its interpreter meanwhile.
    return { episode, closing: session.close().then(() => mark(spec, "closed"), () => undefined) };
  };
  for (const canary of canaries) {
    const episode = await playOne(canary);
    if (episode.timedOut) return { episodes, skipped: `canary play timed out: ${episode.error}` };
  }
  await mapWithConcurrency(rest, options.concurrency ?? options.backend.parallelism, playOne);
  episodes.sort((a, b) => Number(b.canary) - Number(a.canary) || Number(a.hinted) - Number(b.hinted) || a.playIndex - b.playIndex);
  return { episodes, skipped: null };
}

/** An episode that ended before its first turn because the environment failed (its open, or a value it gave). */
function failedEpisode(spec: PlaySpec, options: RunPlaysOptions, error: string, timedOut: boolean, startedAt: number): RecordedEpisode {
  return {
    seed: spec.seed,
    hinted: spec.hinted,
    playIndex: spec.playIndex,
    canary: spec.canary,
    firstObservation: "",
    resetInfo: {},
    turns: [],
    tools: null,
    return: 0,
    totalTokens: 0,
    adapter: options.backend.adapter,
    error,
    timedOut,
    startedAt,
    finishedAt: Date.now(),
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
