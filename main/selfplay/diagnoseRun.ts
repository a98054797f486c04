import type { RunDiagnosis } from "../../shared/api/runTypes.js";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { listAttemptOutcomes } from "../store/queries/uiQueries.js";
import type { Run } from "../store/queries/runs.js";
import { diagnoseAttempts } from "./diagnoseAttempts.js";

/** Attempts looked at: the newest ones, enough to see a pattern. */
const DIAGNOSED_ATTEMPTS = 200;

/**
 * Why a run has no valid environment, once there is something to judge (an iteration done, or the
 * run ended); null while it is too early or when an attempt is valid.
 */
export function diagnoseRun(db: ReadonlyDb, run: Run): RunDiagnosis | null {
  if (run.iterationsCompleted < 1 && (run.status === "running" || run.status === "paused")) return null;
  const config = run.config as { corpus?: unknown } | null;
  return diagnoseAttempts(listAttemptOutcomes(db, run.id, DIAGNOSED_ATTEMPTS), { corpus: config?.corpus !== null });
}
