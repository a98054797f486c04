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

/** `spade envs export --format`: one package (or folder) per environment for another RL stack. */
export const envPackageFormats = ["openenv", "verifiers", "gem", "game-files"] as const;
export type EnvPackageFormat = (typeof envPackageFormats)[number];

export function isEnvPackageFormat(value: string): value is EnvPackageFormat {
  return (envPackageFormats as readonly string[]).includes(value);
}

/** An environment to package, with what its README names as its origin. */
export interface PackagedEnvironment extends EnvExportLine {
  /** The run it came from, or null (an import, an edit). */
  runId: number | null;
  /** The rollout (iteration) of the run that generated it, or null. */
  iteration: number | null;
  /** The run's turn limit (`maxTurns`); 25 (the reference's) when the run does not say. */
  maxTurns: number;
}

/** `manifest.json` of `spade envs export --format <f> --out <dir>`. */
export interface EnvPackageManifest {
  format: EnvPackageFormat;
  createdAt: string;
  /** The workspace database read. */
  db: string;
  /** What was selected: `run:<id>`, `set:<name>`, or `workspace`, with the filter. */
  selection: string;
  /** One entry per environment: its package folder (or game file) and origin. */
  packages: Array<{ path: string; className: string; source: string }>;
  /** Paths relative to the manifest's folder. */
  files: Array<{ path: string; bytes: number; sha256: string }>;
}
