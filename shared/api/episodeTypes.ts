// Episodes and their turns, as the replay view reads them.
import type { ChatMessage } from "../llm.js";

export interface EpisodeSummary {
  id: number;
  runId: number | null;
  environmentId: number;
  hinted: boolean;
  playIndex: number;
  canary: boolean;
  seed: number | null;
  return: number | null;
  turns: number;
  totalTokens: number | null;
  adapter: string | null;
  error: string | null;
  /** The rollout (iteration) the play belongs to: its game's regeneration rollout or a replay rollout after it; null for a play outside a run. */
  rollout: number | null;
  /** The rollout its game was designed (or drawn) in, so a play in a later rollout reads as a replay; null outside a run. */
  gameIteration: number | null;
}

export interface EpisodeDetail extends EpisodeSummary {
  /** The play with the same index and the other hint setting, for side-by-side replay. */
  counterpartId: number | null;
  className: string | null;
  /** The first observation as the agent saw it (with the hint when hinted). */
  firstObservation: string | null;
}

export interface TurnView {
  idx: number;
  messages: ChatMessage[] | null;
  rawReply: string | null;
  reasoning: string | null;
  action: string | null;
  observation: string | null;
  reward: number | null;
  terminated: boolean;
  truncated: boolean;
  info: Record<string, unknown> | null;
  latencyMs: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
}

export interface TurnPage {
  episodeId: number;
  total: number;
  offset: number;
  turns: TurnView[];
}
