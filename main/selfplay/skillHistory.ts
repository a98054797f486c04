import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { listEnvironments, type Environment } from "../store/queries/environments.js";

/** Win rates of the run's earlier played environments of the same skill, oldest first (learning potential). */
export function skillHistory(db: ReadonlyDb, runId: number, env: Pick<Environment, "id" | "skill" | "iteration" | "slot">): number[] {
  const before = (other: { iteration: number | null; slot: number | null }) =>
    (other.iteration ?? 0) < (env.iteration ?? 0) || ((other.iteration ?? 0) === (env.iteration ?? 0) && (other.slot ?? 0) < (env.slot ?? 0));
  return listEnvironments(db, { runId, valid: true, orderBy: "id", limit: Number.MAX_SAFE_INTEGER })
    .filter((other) => other.id !== env.id && other.skill === env.skill && other.winRate !== null && before(other))
    .sort((a, b) => (a.iteration ?? 0) - (b.iteration ?? 0) || (a.slot ?? 0) - (b.slot ?? 0))
    .map((other) => other.winRate!);
}
