import { useEffect, useRef } from "react";
import type { WorkbenchEvent } from "../../../shared/api/events.js";
import { useApi } from "../lib/api/ApiContext.js";

/** Calls `listener` for every engine event while the component is mounted. */
export function useWorkbenchEvents(listener: (event: WorkbenchEvent) => void): void {
  const api = useApi();
  const ref = useRef(listener);
  ref.current = listener;
  useEffect(() => api.subscribe((event) => ref.current(event)), [api]);
}
