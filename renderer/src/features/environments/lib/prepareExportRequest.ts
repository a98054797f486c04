import type { EnvExportRequest } from "../../../../../shared/api/envExportTypes.js";
import { envPackageFormats, isEnvPackageFormat, type EnvExportFilter } from "../../../../../shared/envExport.js";

/** The formats the Export… form offers, with what each is for. */
export const exportFormatChoices: ReadonlyArray<{ format: (typeof envPackageFormats)[number]; label: string }> = [
  { format: "openenv", label: "OpenEnv (server + Dockerfile: TRL, Unsloth, SkyRL, ART...)" },
  { format: "verifiers", label: "verifiers (load_environment → vf.GymEnv)" },
  { format: "gem", label: "GEM (gem.register)" },
  { format: "game-files", label: "game files (the reference's slime training)" },
];

/** What the form holds: the format chosen and the folder typed (blank: the default). */
export interface ExportForm {
  format: string;
  outDir: string;
}

/** Where the form's environments come from: one set, or a run (or every run) with a filter. */
export type ExportScope = { set: string } | { runId?: number; filter?: EnvExportFilter };

/** The API request for the form, or the problem to show next to it. */
export function prepareExportRequest(form: ExportForm, scope: ExportScope): { request: EnvExportRequest } | { error: string } {
  if (!isEnvPackageFormat(form.format)) return { error: `Choose a format: ${envPackageFormats.join(", ")}.` };
  const outDir = form.outDir.trim();
  if (outDir.includes("\0")) return { error: "The folder name contains a NUL character." };
  const request: EnvExportRequest = { format: form.format, ...scope };
  if (outDir) request.outDir = outDir;
  return { request };
}

/** The default folder named under the form: relative to the workspace's folder. */
export function defaultExportDir(format: string): string {
  return `exports/${isEnvPackageFormat(format) ? format : "<format>"}`;
}
