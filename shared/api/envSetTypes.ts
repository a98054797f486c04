// Environment sets: named, shareable pools of environments (fixed-pool baselines, curated exports).

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
  /** Every play of this member's code in any run (the canary left out), when it was played. */
  played?: EnvSetMemberPlays | null;
}

/** What all plays of one set member say, over every run that played its code. */
export interface EnvSetMemberPlays {
  /** Runs that played it. */
  runs: number;
  plays: number;
  hintPlays: number;
  winRate: number | null;
  hintWinRate: number | null;
  meanReturn: number | null;
  hintMeanReturn: number | null;
  /** max(0, hinted mean return - unhinted mean return); null unless both kinds were played. */
  regret: number | null;
}

export interface EnvSetDetail extends EnvSetSummary {
  items: EnvSetMemberView[];
}
