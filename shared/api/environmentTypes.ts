// What the workbench shows about environments (one row per designer attempt or edited version).
import type { ValidationReport } from "../environment.js";
import type { ChatMessage } from "../llm.js";
import type { EnvStatistics } from "../envStatistics.js";
import type { EpisodeSummary } from "./episodeTypes.js";

export type EnvironmentSource = "designer" | "repair" | "edit" | "import" | "fixed";
/** "slot": by iteration, slot and attempt, so a slot's repairs follow its first attempt. */
export type EnvironmentOrder = "newest" | "oldest" | "slot" | "regret" | "winRate" | "designerReward" | "run" | "skill" | "memory";

/** An environment's place in the memory, as the list filters it: "none" is never in memory, pinned nor banned. */
export type MemoryStateFilter = "pinned" | "banned" | "inMemory" | "none";

/** Filters and paging for the environment list. */
export interface EnvironmentFilter {
  runId?: number;
  iteration?: number;
  valid?: boolean;
  regretMin?: number;
  regretMax?: number;
  winRateMin?: number;
  winRateMax?: number;
  /** Matched against class name and code. */
  text?: string;
  /** Only environments of this skill (exact name). */
  skill?: string;
  /** Only environments in this memory state. */
  memory?: MemoryStateFilter;
  /** Defaults to "oldest". */
  order?: EnvironmentOrder;
  /** Defaults to 0. */
  offset?: number;
  /** Defaults to 100 (at most 1000). */
  limit?: number;
}

export interface MemoryFlags {
  pinned: boolean;
  banned: boolean;
  inMemory: boolean;
}

export interface EnvironmentListItem {
  id: number;
  runId: number | null;
  iteration: number | null;
  slot: number | null;
  attempt: number | null;
  source: EnvironmentSource;
  className: string | null;
  valid: boolean;
  validationError: string | null;
  novelty: "novel" | "duplicate" | null;
  winRate: number | null;
  hintWinRate: number | null;
  regret: number | null;
  designerReward: number | null;
  createdAt: number;
  skill: string | null;
  /** The memory flags (all false when the environment never entered memory). */
  pinned?: boolean;
  banned?: boolean;
  inMemory?: boolean;
  /** Why the game's hinted plays were skipped, when they were. */
  hintSkipped?: string | null;
}

export interface EnvironmentPage {
  total: number;
  offset: number;
  items: EnvironmentListItem[];
}

export interface EnvironmentStats extends EnvStatistics {
  designerReward: number | null;
  rewardKind: string | null;
  stepTimeouts: number;
}

export interface HintView {
  source: "env" | "writer";
  text: string;
}

export interface EnvironmentDetail extends EnvironmentListItem {
  parentId: number | null;
  documentId: string | null;
  skill: string | null;
  difficulty: string | null;
  code: string;
  /** The designer's prompt messages (null for edits and imports). */
  prompt: ChatMessage[] | null;
  /** The designer's raw reply, before the code was extracted (null for edits and imports). */
  rawReply: string | null;
  validation: ValidationReport | null;
  hint: HintView | null;
  /** Why this game has no hint and its hinted plays were skipped (e.g. the hint prompt did not fit the context); absent or null otherwise. */
  hintSkipped?: string | null;
  stats: EnvironmentStats | null;
  /** Null when the environment never entered memory. */
  memory: MemoryFlags | null;
  /** Versions edited from this one. */
  childIds: number[];
  episodes: EpisodeSummary[];
}
