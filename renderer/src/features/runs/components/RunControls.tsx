import { useState } from "react";
import type { RunSummary } from "../../../../../shared/api/runTypes.js";
import { useApi } from "../../../lib/api/ApiContext.js";

/** Pause / resume / stop for one run; reports failures through `onError`. */
export function RunControls({ run, onDone, onError }: { run: RunSummary; onDone: () => void; onError: (error: Error) => void }) {
  const api = useApi();
  const [busy, setBusy] = useState(false);
  async function act(action: "pauseRun" | "resumeRun" | "stopRun") {
    setBusy(true);
    try {
      await api[action]({ runId: run.id });
      onDone();
    } catch (error) {
      onError(error as Error);
    } finally {
      setBusy(false);
    }
  }
  // An interrupted run (its process is gone) resumes like a paused one.
  const resumable = run.status === "paused" || run.status === "interrupted";
  const live = run.status === "running" || resumable;
  return (
    <span className="controls">
      {run.status === "running" && (
        <button type="button" disabled={busy} onClick={() => act("pauseRun")}>
          Pause
        </button>
      )}
      {resumable && (
        <button type="button" disabled={busy} onClick={() => act("resumeRun")}>
          Resume
        </button>
      )}
      {live && (
        <button type="button" disabled={busy} onClick={() => act("stopRun")}>
          Stop
        </button>
      )}
    </span>
  );
}
