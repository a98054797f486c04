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
}

export interface EnvSetDetail extends EnvSetSummary {
  items: EnvSetMemberView[];
}
