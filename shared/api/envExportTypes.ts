// Exporting environments as packages for other RL stacks (`spade envs export --format` from the UI).
import type { EnvExportFilter, EnvPackageFormat } from "../envExport.js";

/** Which environments, which format, where. */
export interface EnvExportRequest {
  format: EnvPackageFormat;
  /** One run's environments. Defaults to every run. */
  runId?: number;
  /** Defaults to "valid". Not with `set`. */
  filter?: EnvExportFilter;
  /** The members of this set instead of a run's environments. */
  set?: string;
  /** The folder written; relative paths are relative to the workspace's folder. Defaults to `exports/<format>` there. */
  outDir?: string;
}

export interface EnvExportResult {
  format: EnvPackageFormat;
  /** The absolute folder written (with its `manifest.json`). */
  outDir: string;
  packages: number;
  files: number;
  selection: string;
}
