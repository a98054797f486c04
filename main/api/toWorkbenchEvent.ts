// The self-play loop's events -> the workbench's pushed events (null: not shown live).
import type { WorkbenchEvent } from "../../shared/api/events.js";
import type { RunProgressSnapshot } from "../../shared/api/runTypes.js";
import { runStatuses } from "../store/queries/runs.js";

type Loose = { type: string } & Record<string, unknown>;

const num = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);

export function toWorkbenchEvent(event: { type: string }): WorkbenchEvent | null {
  const e = event as Loose;
  switch (e.type) {
    case "iterationStarted":
      return { type: "runProgress", runId: num(e.runId), iteration: num(e.iteration), done: 0, total: 0, phase: "starting" };
    case "progress": {
      const progress = e.progress as RunProgressSnapshot;
      const played = progress.units.find((unit) => unit.name === "played");
      return { type: "runProgress", runId: num(e.runId), iteration: progress.iteration, done: played?.done ?? 0, total: played?.total ?? 0, phase: progress.phase, progress };
    }
    case "slotPhase":
      return { type: "runProgress", runId: num(e.runId), iteration: num(e.iteration), done: num(e.slot), total: num(e.slots), phase: typeof e.phase === "string" ? e.phase : null };
    case "environmentAdded":
      return { type: "environmentAdded", runId: num(e.runId), environmentId: num(e.environmentId), iteration: num(e.iteration), valid: e.valid === true };
    case "iterationCompleted":
      return { type: "iterationCompleted", runId: num(e.runId), iteration: num(e.iteration) };
    case "trainingStarted":
      return { type: "trainingRound", runId: num(e.runId), round: num(e.round), phase: "batch", step: 0, steps: 0, loss: null, status: "running" };
    case "trainingProgress":
      return { type: "trainingRound", runId: num(e.runId), round: num(e.round), phase: (e.phase as "batch") ?? "training", step: num(e.step), steps: num(e.steps), loss: typeof e.loss === "number" ? e.loss : null, status: "running" };
    case "trainingFinished":
      return { type: "trainingRound", runId: num(e.runId), round: num(e.round), phase: "finished", step: 0, steps: 0, loss: typeof e.loss === "number" ? e.loss : null, status: (e.status as "completed") ?? "failed" };
    case "runStatus":
      if (!(runStatuses as readonly unknown[]).includes(e.status)) return null;
      return { type: "runStatus", runId: num(e.runId), status: e.status as (typeof runStatuses)[number], error: typeof e.error === "string" ? e.error : null };
    case "modelProgress":
      return { type: "modelProgress", model: String(e.model ?? ""), phase: e.phase === "download" ? "download" : "load", fraction: typeof e.fraction === "number" ? e.fraction : null, bytes: typeof e.bytes === "number" ? e.bytes : null, totalBytes: typeof e.totalBytes === "number" ? e.totalBytes : null };
    default:
      return null;
  }
}
