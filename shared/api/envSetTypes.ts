// Environment sets: named, shareable pools of environments (fixed-pool baselines, curated exports).
import type { EnvStatistics } from "../envStatistics.js";

export interface EnvSetSummary {
  name: string;
  members: number;
  createdAt: number;
}

export interface EnvSetMemberView {
  codeSha256: string;
  /** The stored environment it came from, when known. */
  environmentId: number | null;
  className: string | null;
  skill: string | null;
  hint: string | null;
  winRate: number | null;
  hintWinRate: number | null;
  regret: number | null;
  source: string;
  /** Every play of this member's code in any run (the canary counted, as in the environment's statistics), when it was played. */
  played?: EnvSetMemberPlays | null;
}

/** What all plays of one set member say, over every run that played its code. */
export interface EnvSetMemberPlays extends EnvStatistics {
  /** Runs that played it. */
  runs: number;
}

export interface EnvSetDetail extends EnvSetSummary {
  items: EnvSetMemberView[];
}
