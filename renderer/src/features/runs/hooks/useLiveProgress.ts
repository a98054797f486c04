import { useState } from "react";
import type { ModelProgressEvent } from "../../../../../shared/api/events.js";
import type { RunProgressSnapshot } from "../../../../../shared/api/runTypes.js";
import { useWorkbenchEvents } from "../../../hooks/useWorkbenchEvents.js";

/**
 * The latest progress per run (from this process's runs and, through the workspace watcher, from
 * runs of other processes) and the latest model load/download progress. Every other event calls
 * `onChange` (the views reload).
 */
export function useLiveProgress(onChange: () => void) {
  const [runs, setRuns] = useState<Record<number, RunProgressSnapshot>>({});
  const [model, setModel] = useState<ModelProgressEvent | null>(null);
  useWorkbenchEvents((event) => {
    if (event.type === "runProgress") {
      const progress = event.progress;
      if (progress) setRuns((previous) => ({ ...previous, [event.runId]: progress }));
    } else if (event.type === "modelProgress") setModel(event.state === "done" || event.state === "failed" ? null : event);
    else onChange();
  });
  return { runs, model };
}
