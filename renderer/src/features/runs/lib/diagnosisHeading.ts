import type { RunStatus } from "../../../../../shared/api/runTypes.js";

/** The diagnosis banner's first words: "yet" only while the run can still make a valid environment. */
export function diagnosisHeading(status: RunStatus): string {
  return status === "running" || status === "paused" || status === "interrupted" ? "No valid environment yet." : "No valid environment in this run.";
}
