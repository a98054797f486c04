import { useState } from "react";
import { ErrorBox } from "../../../components/ErrorBox.js";
import { Loading } from "../../../components/Loading.js";
import { ProgressBar } from "../../../components/ProgressBar.js";
import { StatusBadge } from "../../../components/StatusBadge.js";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { formatTime } from "../../../lib/format/formatNumber.js";
import { routes } from "../../../lib/router/parseRoute.js";
import { useLiveProgress } from "../hooks/useLiveProgress.js";
import { prepareRunProgress } from "../lib/prepareRunProgress.js";
import { AblationBadges } from "./AblationBadges.js";
import { RunControls } from "./RunControls.js";
import { RunFormPanel } from "./RunFormPanel.js";
import { TextWithCode } from "../../../components/TextWithCode.js";

/** `cloneFrom` / `fixedSet` (from `#/runs?clone=<id>` / `?fixedSet=<name>`) open the start form prefilled. */
export function RunsView({ cloneFrom = null, fixedSet = null }: { cloneFrom?: number | null; fixedSet?: string | null }) {
  const api = useApi();
  const runs = useQuery("runs", () => api.listRuns({}));
  const live = useLiveProgress(runs.reload);
  const [actionError, setActionError] = useState<Error | null>(null);
  const [showForm, setShowForm] = useState(cloneFrom !== null || fixedSet !== null);

  return (
    <section className="view" data-testid="runs-view">
      <header className="view-head">
        <h2>Runs</h2>
        <button type="button" onClick={() => setShowForm((s) => !s)}>
          {showForm ? "Close" : "New run"}
        </button>
      </header>
      {showForm && (
        <RunFormPanel
          cloneFrom={cloneFrom}
          fixedSet={fixedSet}
          onStarted={(runId) => {
            setShowForm(false);
            runs.reload();
            window.location.hash = routes.run(runId);
          }}
        />
      )}
      {live.model && <ProgressBar label={`${live.model.phase === "download" ? "Downloading" : "Loading"} ${live.model.model}`} fraction={live.model.fraction} />}
      {actionError && <ErrorBox error={actionError} />}
      {runs.error && <ErrorBox error={runs.error} onRetry={runs.reload} />}
      {!runs.data && !runs.error && <Loading what="runs" />}
      {runs.data && runs.data.length === 0 && <p className="empty">No runs yet. Start one with “New run” or <code>spade run --config</code>.</p>}
      {runs.data && runs.data.length > 0 && (
        <table className="table" data-testid="runs-table">
          <thead>
            <tr>
              <th>Run</th>
              <th>Status</th>
              <th>Iterations</th>
              <th>Environments</th>
              <th>Started</th>
              <th>Progress</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {runs.data.map((run) => {
              const progress = run.status === "running" ? prepareRunProgress(live.runs[run.id] ?? run.progress) : null;
              return (
                <tr key={run.id}>
                  <td>
                    <a href={routes.run(run.id)}>
                      #{run.id} {run.name ?? ""}
                    </a>
                    <AblationBadges ablations={run.ablations} />
                  </td>
                  <td>
                    <StatusBadge status={run.status} />
                    {run.error && (
                      <div className="muted small">
                        <TextWithCode text={run.error} />
                      </div>
                    )}
                  </td>
                  <td>
                    {run.iterationsCompleted}
                    {run.iterations !== null && ` / ${run.iterations}`}
                  </td>
                  <td>
                    {run.validEnvironments} valid of {run.environments}
                  </td>
                  <td>{formatTime(run.createdAt)}</td>
                  <td className="progress-cell">
                    {progress ? (
                      <ProgressBar label={progress.label} fraction={progress.fraction} />
                    ) : (
                      <span className="muted">–</span>
                    )}
                  </td>
                  <td>
                    <RunControls run={run} onDone={runs.reload} onError={setActionError} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
