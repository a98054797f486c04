import { useState } from "react";
import type { ModelProgressEvent } from "../../../../../shared/api/events.js";
import { useWorkbenchEvents } from "../../../hooks/useWorkbenchEvents.js";

/** The latest progress of each model being downloaded or loaded; finished ones drop out. */
export function useModelProgress(): Record<string, ModelProgressEvent> {
  const [progress, setProgress] = useState<Record<string, ModelProgressEvent>>({});
  useWorkbenchEvents((event) => {
    if (event.type !== "modelProgress") return;
    setProgress((previous) => {
      const next = { ...previous };
      if (event.state === "done" || event.state === "failed") delete next[event.model];
      else next[event.model] = event;
      return next;
    });
  });
  return progress;
}
