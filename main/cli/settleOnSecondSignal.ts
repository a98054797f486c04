import type { WritableDb } from "../store/DatabaseHandle.js";
import { getRun, settleRun } from "../store/queries/runs.js";

/**
 * What `spade run` does when asked twice to stop: a run that has just completed stays completed
 * (exit 0, as its own end would give); otherwise the pause is stored at once (status and owner in
 * one transaction) and the process exits 130.
 */
export function settleOnSecondSignal(db: WritableDb, runId: number, pid: number): { code: number; message: string } {
  if (getRun(db, runId)?.status === "completed") return { code: 0, message: `run ${runId} completed` };
  settleRun(db, runId, pid, "paused");
  return { code: 130, message: `run ${runId} paused` };
}
