import { useState } from "react";
import type { ModelProgressEvent, RunProgressEvent } from "../../../../../shared/api/events.js";
import { useWorkbenchEvents } from "../../../hooks/useWorkbenchEvents.js";

/** The latest iteration progress per run and the latest model load/download progress. */
export function useLiveProgress(onChange: () => void) {
  const [runs, setRuns] = useState<Record<number, RunProgressEvent>>({});
  const [model, setModel] = useState<ModelProgressEvent | null>(null);
  useWorkbenchEvents((event) => {
    if (event.type === "runProgress") setRuns((previous) => ({ ...previous, [event.runId]: event }));
    else if (event.type === "modelProgress") setModel(event.state === "done" || event.state === "failed" ? null : event);
    else onChange();
  });
  return { runs, model };
}
