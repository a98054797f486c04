import type { EnvExportFilter, PackagedEnvironment } from "../../../shared/envExport.js";
import { selectDistinctRunEnvironments } from "../../experiments/selectRunEnvironments.js";
import type { ReadonlyDb } from "../../store/DatabaseHandle.js";
import { listEnvSetMembers } from "../../store/queries/envSets.js";
import { getEnvironment } from "../../store/queries/environments.js";
import { getRun } from "../../store/queries/runs.js";

/** The reference's turn limit, for environments whose run does not say (imports, sets). */
const DEFAULT_MAX_TURNS = 25;

export interface SelectPackagedOptions {
  /** One run's environments. Defaults to every run. */
  runId?: number;
  /** Defaults to "valid". Ignored with `set`. */
  filter?: EnvExportFilter;
  /** The members of a named environment set instead of a run's environments. */
  set?: string;
}

/** The environments `spade envs export --format` packages, each with its rollout and its run's turn limit. */
export function selectPackagedEnvironments(db: ReadonlyDb, options: SelectPackagedOptions): PackagedEnvironment[] {
  return selectPackaged(db, options).environments;
}

/** The environments to package, and how many were left out because their code is identical to one packaged (a set holds each code once). */
export function selectPackaged(db: ReadonlyDb, options: SelectPackagedOptions): { environments: PackagedEnvironment[]; identical: number } {
  const maxTurnsOf = runTurnLimits(db);
  if (options.set !== undefined) {
    const environments = listEnvSetMembers(db, options.set).map((member) => {
      const stored = member.environmentId === null ? null : getEnvironment(db, member.environmentId);
      const runId = stored?.runId ?? null;
      return {
        className: member.className ?? stored?.className ?? "Env",
        code: member.code,
        hint: member.hint,
        skill: member.skill,
        winRate: member.winRate,
        hintWinRate: member.hintWinRate,
        regret: member.regret,
        source: `set:${options.set}/${member.source}`,
        runId,
        iteration: stored?.iteration ?? null,
        maxTurns: maxTurnsOf(runId),
      };
    });
    return { environments, identical: 0 };
  }
  const { lines, identical } = selectDistinctRunEnvironments(db, { runId: options.runId, filter: options.filter });
  const environments = lines.map((line) => {
    const envId = /env:(\d+)$/.exec(line.source);
    const stored = envId ? getEnvironment(db, Number(envId[1])) : null;
    const runId = stored?.runId ?? null;
    return { ...line, runId, iteration: stored?.iteration ?? null, maxTurns: maxTurnsOf(runId) };
  });
  return { environments, identical };
}

function runTurnLimits(db: ReadonlyDb): (runId: number | null) => number {
  const cache = new Map<number, number>();
  return (runId) => {
    if (runId === null) return DEFAULT_MAX_TURNS;
    let limit = cache.get(runId);
    if (limit === undefined) {
      const config = getRun(db, runId)?.config as { maxTurns?: unknown } | undefined;
      limit = typeof config?.maxTurns === "number" && Number.isInteger(config.maxTurns) && config.maxTurns > 0 ? config.maxTurns : DEFAULT_MAX_TURNS;
      cache.set(runId, limit);
    }
    return limit;
  };
}
