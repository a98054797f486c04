import type { EnvImportReport } from "../../shared/envExport.js";
import type { SandboxPool } from "../sandbox/SandboxPool.js";
import type { WritableDb } from "../store/DatabaseHandle.js";
import { addEnvSetMembers, createEnvSet, type NewEnvSetMember } from "../store/queries/envSets.js";
import { validateEnvironment } from "../validator/validateEnvironment.js";
import type { ReadSources } from "./readEnvironmentSources.js";

export interface ImportEnvironmentsOptions {
  /** Called as each environment's validation ends (its place, of how many, its name, the class or why it was rejected). Defaults to none. */
  onValidated?: (done: number, total: number, name: string, outcome: { valid: true; className: string | null } | { valid: false; error: string }) => void;
}

/**
 * Validates every environment and stores the valid ones in the named set (identical code is
 * stored once, so re-importing adds nothing); each rejected one is reported with its reason.
 */
export async function importEnvironments(db: WritableDb, pool: SandboxPool, setName: string, read: ReadSources, options: ImportEnvironmentsOptions = {}): Promise<EnvImportReport> {
  const rejected = [...read.unreadable];
  const members: NewEnvSetMember[] = [];
  for (const [index, source] of read.sources.entries()) {
    const report = await validateEnvironment(pool, source.code);
    options.onValidated?.(index + 1, read.sources.length, source.name, report.valid ? { valid: true, className: report.className } : { valid: false, error: report.error ?? "invalid" });
    if (!report.valid) {
      rejected.push({ name: source.name, error: report.error ?? "invalid" });
      continue;
    }
    members.push({ code: source.code, className: report.className, hint: source.hint, skill: source.skill, source: source.source });
  }
  createEnvSet(db, setName);
  const imported = addEnvSetMembers(db, setName, members);
  return { set: setName, imported, rejected };
}
