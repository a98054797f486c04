import type { EnvExportFilter, EnvExportLine } from "../../shared/envExport.js";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { getEnvironment, listEnvironments, type EnvironmentFilter } from "../store/queries/environments.js";
import { getHint } from "../store/queries/hints.js";

export interface SelectRunEnvironmentsOptions {
  /** One run, or every run of the workspace. Defaults to every run. */
  runId?: number;
  /** valid: every valid environment; memory: those in memory now; pinned: pinned ones. Defaults to "valid". */
  filter?: EnvExportFilter;
  /** Inclusive regret band. Defaults to no band. */
  regretMin?: number;
  regretMax?: number;
}

/** Valid environments of a run as export lines (one per distinct code), oldest first. */
export function selectRunEnvironments(db: ReadonlyDb, options: SelectRunEnvironmentsOptions = {}): EnvExportLine[] {
  return selectDistinctRunEnvironments(db, options).lines;
}

/** The export lines, and how many valid environments were left out because their code is identical to an earlier one's. */
export function selectDistinctRunEnvironments(db: ReadonlyDb, options: SelectRunEnvironmentsOptions = {}): { lines: EnvExportLine[]; identical: number } {
  const filter: EnvironmentFilter = { valid: true, orderBy: "id", limit: Number.MAX_SAFE_INTEGER, regretMin: options.regretMin, regretMax: options.regretMax };
  if (options.runId !== undefined) filter.runId = options.runId;
  if (options.filter === "memory") filter.inMemory = true;
  if (options.filter === "pinned") filter.pinned = true;
  const seen = new Set<string>();
  const lines: EnvExportLine[] = [];
  let identical = 0;
  for (const summary of listEnvironments(db, filter)) {
    const env = getEnvironment(db, summary.id);
    if (!env?.code || !env.className) continue;
    if (seen.has(env.codeSha256 ?? env.code)) {
      identical++;
      continue;
    }
    seen.add(env.codeSha256 ?? env.code);
    lines.push({
      className: env.className,
      code: env.code,
      hint: getHint(db, env.id)?.text ?? null,
      skill: env.skill,
      winRate: summary.winRate,
      hintWinRate: summary.hintWinRate,
      regret: summary.regret,
      source: env.runId === null ? `env:${env.id}` : `run:${env.runId}/env:${env.id}`,
    });
  }
  return { lines, identical };
}
