import { ErrorBox } from "../../../components/ErrorBox.js";
import { MetricChart } from "../../../components/MetricChart.js";
import { StatusBadge } from "../../../components/StatusBadge.js";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { prepareMetricChart } from "../../../lib/charts/prepareMetricChart.js";
import { formatDuration } from "../../../lib/format/formatNumber.js";
import { routes } from "../../../lib/router/parseRoute.js";
import { prepareTrainingRounds } from "../lib/prepareTrainingRounds.js";

/** The run's training rounds: which adapter played which iteration, the training curves, each adapter's lineage. */
export function TrainingRounds({ runId, version }: { runId: number; version: number }) {
  const api = useApi();
  const training = useQuery(`training:${runId}:${version}`, () => api.getRunTraining({ runId }));
  if (training.error) return <ErrorBox error={training.error} onRetry={training.reload} />;
  if (!training.data || training.data.rounds.length === 0) return null;
  const data = prepareTrainingRounds(training.data);
  const lossSeries = data.curveKeys.filter((key) => key === "loss" || key === "kl").map((key) => ({ key, label: key }));
  const ratioSeries = data.curveKeys.filter((key) => key !== "loss" && key !== "kl" && key !== "gradNorm").map((key) => ({ key, label: key }));
  return (
    <div className="card" data-testid="training-rounds">
      <h3>Training inside the run</h3>
      <table className="table">
        <thead>
          <tr>
            <th>iteration</th>
            <th>sampled with</th>
            <th>round after it</th>
            <th>adapter</th>
            <th>loss</th>
            <th>took</th>
          </tr>
        </thead>
        <tbody>
          {data.axis.map((row) => (
            <tr key={row.iteration} data-testid="training-axis-row">
              <td>{row.iteration}</td>
              <td>{row.adapters.map((adapter) => adapter ?? "base model").join(", ") || "-"}</td>
              <td>{row.round ? <StatusBadge status={row.round.status} /> : ""}</td>
              <td>{row.round?.adapterId != null ? <a href={routes.models(row.round.adapterId)}>{row.round.adapterName}</a> : (row.round?.reason ?? "")}</td>
              <td>{row.round?.metrics.loss?.toFixed(4) ?? ""}</td>
              <td>{row.round?.metrics.seconds === undefined ? "" : formatDuration(row.round.metrics.seconds * 1000)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {data.curveKeys.length > 0 && <MetricChart chart={prepareMetricChart("loss", data.curves, lossSeries, "Training loss and KL per round")} series={lossSeries} />}
      {data.curveKeys.length > 0 && <MetricChart chart={prepareMetricChart("ratio", data.curves, ratioSeries, "Importance ratios per round")} series={ratioSeries} />}
      <h4>Lineage</h4>
      <ul data-testid="training-lineage">
        {data.lineage.map((entry) => (
          <li key={entry.adapterId}>
            <a href={routes.models(entry.adapterId)}>{entry.adapterName}</a> ({entry.status}) ← {entry.parentAdapterId === null ? "base model" : <a href={routes.models(entry.parentAdapterId)}>{entry.parentName}</a>}
          </li>
        ))}
      </ul>
    </div>
  );
}
