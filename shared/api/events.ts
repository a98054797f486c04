// Events the engine pushes to the workbench (Electron `spade:event`, WebSocket `/ws`).
import type { RunStatus } from "./runTypes.js";

export interface RunProgressEvent {
  type: "runProgress";
  runId: number;
  iteration: number;
  /** Environments finished in this iteration. */
  done: number;
  total: number;
  /** What the loop is doing now, e.g. "designer", "validate", "plays". */
  phase: string | null;
}

export interface RunStatusEvent {
  type: "runStatus";
  runId: number;
  status: RunStatus;
  error: string | null;
}

export interface EnvironmentAddedEvent {
  type: "environmentAdded";
  runId: number | null;
  environmentId: number;
  iteration: number | null;
  valid: boolean;
}

export interface ModelProgressEvent {
  type: "modelProgress";
  /** The model being loaded or downloaded. */
  model: string;
  phase: "download" | "load";
  /** 0..1, or null when the total is unknown. */
  fraction: number | null;
  bytes: number | null;
  totalBytes: number | null;
  /** "done" or "failed" ends the progress. Defaults to "active" when absent. */
  state?: "active" | "done" | "failed";
  /** Why it failed (state "failed"). */
  error?: string;
}

/** An iteration finished: its metrics are stored (charts reload). */
export interface IterationCompletedEvent {
  type: "iterationCompleted";
  runId: number;
  iteration: number;
}

export type WorkbenchEvent = RunProgressEvent | RunStatusEvent | EnvironmentAddedEvent | ModelProgressEvent | IterationCompletedEvent;
export type WorkbenchEventType = WorkbenchEvent["type"];
export const workbenchEventTypes: readonly WorkbenchEventType[] = ["runProgress", "runStatus", "environmentAdded", "modelProgress", "iterationCompleted"];
