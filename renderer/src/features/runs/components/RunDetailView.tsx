import { EnvironmentTable } from "../../../components/EnvironmentTable.js";
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
import { storedDesignerKind } from "../../../../../shared/storedDesignerKind.js";
import { storedHintPlays } from "../lib/prepareRunCharts.js";
import { AblationBadges } from "./AblationBadges.js";
import { DiagnosisBanner } from "./DiagnosisBanner.js";
import { HeldOutScores } from "./HeldOutScores.js";
import { HintsSkippedNote } from "./HintsSkippedNote.js";
import { RunCharts } from "./RunCharts.js";
import { useState } from "react";
import { RunControls } from "./RunControls.js";
import { TrainingRounds } from "./TrainingRounds.js";
import { TextWithCode } from "../../../components/TextWithCode.js";

export function RunDetailView({ runId }: { runId: number }) {
  const api = useApi();
  const run = useQuery(`run:${runId}`, () => api.getRun({ runId }));
  const metrics = useQuery(`metrics:${runId}`, () => api.getRunMetrics({ runId }));
  const [tableVersion, setTableVersion] = useState(0);
  const [actionError, setActionError] = useState<Error | null>(null);
  const live = useLiveProgress(() => {
    run.reload();
    metrics.reload();
    setTableVersion((v) => v + 1);
  });
  if (run.error) return <ErrorBox error={run.error} onRetry={run.reload} />;
  if (!run.data) return <Loading what={`run ${runId}`} />;
  const r = run.data;
  const progress = r.status === "running" ? prepareRunProgress(live.runs[runId] ?? r.progress) : null;
  return (
    <section className="view" data-testid="run-view">
      <header className="view-head">
        <h2>
          Run #{r.id} {r.name ?? ""} <StatusBadge status={r.status} />
        </h2>
        <AblationBadges ablations={r.ablations} />
        <RunControls run={r} onDone={run.reload} onError={setActionError} />
        <a href={routes.compare([r.id])}>Compare…</a>
        <a className="button-link" href={routes.cloneRun(r.id)} data-testid="clone-run">
          Clone run
        </a>
      </header>
      {actionError && <ErrorBox error={actionError} />}
      {r.diagnosis && <DiagnosisBanner runId={r.id} status={r.status} diagnosis={r.diagnosis} />}
      <HintsSkippedNote skipped={r.hintsSkipped} />
      <p className="muted">
        seed {r.seed} · {r.iterationsCompleted}
        {r.iterations !== null ? ` / ${r.iterations}` : ""} iterations · {r.validEnvironments} valid of {r.environments} environments · started {formatTime(r.createdAt)}
        {r.error && (
          <span className="bad">
            {" "}
            · <TextWithCode text={r.error} />
          </span>
        )}
      </p>
      {live.model && <ProgressBar label={`${live.model.phase === "download" ? "Downloading" : "Loading"} ${live.model.model}`} fraction={live.model.fraction} />}
      {progress && (
        <div data-testid="run-progress">
          <ProgressBar label={progress.label} fraction={progress.fraction} />
        </div>
      )}
      {metrics.error && <ErrorBox error={metrics.error} onRetry={metrics.reload} />}
      {metrics.data && <RunCharts metrics={metrics.data} designerKind={storedDesignerKind(r.config)} hintPlays={storedHintPlays(r.config)} />}
      <TrainingRounds runId={runId} version={tableVersion} />
      <HeldOutScores runId={runId} />
      <h3>Environments</h3>
      <EnvironmentTable key={tableVersion} filter={{ runId, order: "slot" }} height={360} />
      <details>
        <summary>Config</summary>
        <pre className="code-block">{JSON.stringify(r.config, null, 2)}</pre>
      </details>
    </section>
  );
}
