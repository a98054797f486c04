import type { RunComparisonView } from "../../../../../shared/api/compareTypes.js";
import { StatusBadge } from "../../../components/StatusBadge.js";
import { metricLabel, seriesColor } from "../../../lib/charts/metricLabels.js";
import { formatMetric } from "../../../lib/charts/prepareMetricChart.js";
import { formatNumber } from "../../../lib/format/formatNumber.js";
import { routes } from "../../../lib/router/parseRoute.js";
import { comparedMetricNames } from "../lib/prepareComparison.js";

/** One row per run: its colour in the charts, ablations, metrics averaged over iterations, held-out scores. */
export function ComparedRunsTable({ view }: { view: RunComparisonView }) {
  const metrics = comparedMetricNames(view);
  return (
    <table className="table compact" data-testid="compared-runs">
      <caption className="muted small">Metrics are means over each run's iterations.</caption>
      <thead>
        <tr>
          <th>Run</th>
          <th>Ablations</th>
          <th>Iterations</th>
          {metrics.map((name) => (
            <th key={name}>{metricLabel(name)}</th>
          ))}
          <th>Held-out</th>
        </tr>
      </thead>
      <tbody>
        {view.runs.map((run, i) => (
          <tr key={run.id}>
            <td>
              <span className="swatch" style={{ background: seriesColor(i) }} /> <a href={routes.run(run.id)}>#{run.id}</a> {run.name ?? ""} <StatusBadge status={run.status} />
            </td>
            <td>{run.ablations.length > 0 ? run.ablations.join(", ") : <span className="muted">none (SPADE recipe)</span>}</td>
            <td>{run.iterations.length}</td>
            {metrics.map((name) => (
              <td key={name}>{formatMetric(name, run.summary[name])}</td>
            ))}
            <td className="small">{run.heldOut.length === 0 ? "–" : run.heldOut.map((score) => `${score.adapter ?? "base"} ${score.suite}: ${formatNumber(score.accuracy ?? score.winRate, 3)}`).join("; ")}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
