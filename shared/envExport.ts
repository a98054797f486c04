// One line of `spade envs export` (and an accepted line of `spade envs import`): a CLI contract.

export interface EnvExportLine {
  className: string;
  code: string;
  hint: string | null;
  skill: string | null;
  winRate: number | null;
  hintWinRate: number | null;
  regret: number | null;
  /** Where it came from, e.g. `run:3/env:17`, `set:pool`, or a file name. */
  source: string;
}

/** `spade envs import --json` output. */
export interface EnvImportReport {
  set: string;
  imported: number;
  rejected: { name: string; error: string }[];
}

export const envExportFilters = ["valid", "memory", "pinned"] as const;
export type EnvExportFilter = (typeof envExportFilters)[number];
