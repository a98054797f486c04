// The environment list's filters live in the URL (`#/envs?run=1&valid=true&regretMin=0.1`).
import type { EnvironmentFilter, EnvironmentOrder, MemoryStateFilter } from "../../../../../shared/api/environmentTypes.js";

const orders: EnvironmentOrder[] = ["newest", "oldest", "slot", "regret", "winRate", "designerReward", "run", "skill", "memory"];
const memoryStates: MemoryStateFilter[] = ["pinned", "banned", "inMemory", "none"];

function number(query: URLSearchParams, key: string): number | undefined {
  const text = query.get(key);
  if (text === null || text.trim() === "") return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

function positiveInt(query: URLSearchParams, key: string, min: number): number | undefined {
  const value = number(query, key);
  return value !== undefined && Number.isInteger(value) && value >= min ? value : undefined;
}

/** Reads the filter; malformed values are ignored rather than sent to the engine. */
export function filterFromQuery(query: URLSearchParams): EnvironmentFilter {
  const filter: EnvironmentFilter = {};
  const runId = positiveInt(query, "run", 1);
  if (runId !== undefined) filter.runId = runId;
  const iteration = positiveInt(query, "iteration", 0);
  if (iteration !== undefined) filter.iteration = iteration;
  const valid = query.get("valid");
  if (valid === "true" || valid === "false") filter.valid = valid === "true";
  for (const key of ["regretMin", "regretMax", "winRateMin", "winRateMax"] as const) {
    const value = number(query, key);
    if (value !== undefined) filter[key] = value;
  }
  const text = query.get("q")?.trim();
  if (text) filter.text = text;
  const skill = query.get("skill")?.trim();
  if (skill) filter.skill = skill;
  const memory = query.get("memory");
  if (memory && (memoryStates as string[]).includes(memory)) filter.memory = memory as MemoryStateFilter;
  const order = query.get("order");
  if (order && (orders as string[]).includes(order)) filter.order = order as EnvironmentOrder;
  return filter;
}

/** The inverse, for links and the filter form. */
export function queryFromFilter(filter: EnvironmentFilter): Record<string, string | undefined> {
  return {
    run: filter.runId?.toString(),
    iteration: filter.iteration?.toString(),
    valid: filter.valid === undefined ? undefined : String(filter.valid),
    regretMin: filter.regretMin?.toString(),
    regretMax: filter.regretMax?.toString(),
    winRateMin: filter.winRateMin?.toString(),
    winRateMax: filter.winRateMax?.toString(),
    q: filter.text,
    skill: filter.skill,
    memory: filter.memory,
    order: filter.order,
  };
}
