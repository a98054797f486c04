import { useState } from "react";
import type { RunSummary } from "../../../../../shared/api/runTypes.js";
import { useApi } from "../../../lib/api/ApiContext.js";

/** Pause / resume / stop for one run (stop after a confirmation: the window cannot undo it); reports failures through `onError`. */
export function RunControls({ run, onDone, onError }: { run: RunSummary; onDone: () => void; onError: (error: Error) => void }) {
  const api = useApi();
  const [busy, setBusy] = useState(false);
  const [confirmingStop, setConfirmingStop] = useState(false);
  async function act(action: "pauseRun" | "resumeRun" | "stopRun") {
    setBusy(true);
    setConfirmingStop(false);
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
  if (confirmingStop && live) {
    return (
      <span className="controls confirm" role="alertdialog" aria-label={`Stop run #${run.id}?`} data-testid="stop-confirm">
        <span>
          Stop run #{run.id}? This cannot be undone here: a stopped run gets no Resume button{run.status === "running" ? " (Pause keeps it resumable)" : ""}. Only <code>spade run --config &lt;its config&gt; --resume</code> continues it.
        </span>
        <button type="button" className="danger" disabled={busy} onClick={() => act("stopRun")}>
          Stop run
        </button>
        <button type="button" disabled={busy} onClick={() => setConfirmingStop(false)}>
          Cancel
        </button>
      </span>
    );
  }
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
        <button type="button" disabled={busy} onClick={() => setConfirmingStop(true)}>
          Stop
        </button>
      )}
    </span>
  );
}
