import type { RunTrainingView } from "../../shared/api/trainingTypes.js";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { getAdapter } from "../store/queries/adapters.js";
import { listIterationAdapters, listTrainingRounds } from "../store/queries/trainingRounds.js";

/** The run page's training view: rounds with their numeric metrics, and the adapter of each iteration's plays. */
export function toRunTrainingView(db: ReadonlyDb, runId: number): RunTrainingView {
  const rounds = listTrainingRounds(db, runId).map((round) => ({
    round: round.round,
    afterIteration: round.afterIteration,
    status: round.status,
    adapterId: round.adapterId,
    adapterName: round.adapterId === null ? null : (getAdapter(db, round.adapterId)?.name ?? null),
    parentAdapterId: round.parentAdapterId,
    metrics: Object.fromEntries(Object.entries(round.metrics).filter((entry): entry is [string, number] => typeof entry[1] === "number" && Number.isFinite(entry[1]))),
    reason: typeof round.metrics.reason === "string" ? round.metrics.reason : null,
    startedAt: round.startedAt,
    finishedAt: round.finishedAt,
  }));
  return { runId, rounds, iterations: listIterationAdapters(db, runId) };
}
