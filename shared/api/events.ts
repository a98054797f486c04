// Events the engine pushes to the workbench (Electron `spade:event`, WebSocket `/ws`).
import type { RunProgressSnapshot, RunStatus } from "./runTypes.js";

export interface RunProgressEvent {
  type: "runProgress";
  runId: number;
  iteration: number;
  /** Environments finished in this iteration. */
  done: number;
  total: number;
  /** What the loop is doing now, e.g. "designer", "validate", "plays". */
  phase: string | null;
  /** The whole live progress (unit counts, training step, time left) when known. */
  progress?: RunProgressSnapshot;
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

/** A training round inside a run: its phase, trainer step and loss; `status` set when it ended. */
export interface TrainingRoundEvent {
  type: "trainingRound";
  runId: number;
  round: number;
  phase: "batch" | "training" | "registering" | "loading" | "finished";
  step: number;
  steps: number;
  loss: number | null;
  status: "running" | "completed" | "failed" | "rejected";
}

export type WorkbenchEvent = RunProgressEvent | RunStatusEvent | EnvironmentAddedEvent | ModelProgressEvent | IterationCompletedEvent | TrainingRoundEvent;
export type WorkbenchEventType = WorkbenchEvent["type"];
export const workbenchEventTypes: readonly WorkbenchEventType[] = ["runProgress", "runStatus", "environmentAdded", "modelProgress", "iterationCompleted", "trainingRound"];
