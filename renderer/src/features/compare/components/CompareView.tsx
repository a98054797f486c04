import { useState, type FormEvent } from "react";
import { ErrorBox } from "../../../components/ErrorBox.js";
import { Loading } from "../../../components/Loading.js";
import { MetricChart } from "../../../components/MetricChart.js";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { metricLabel, preferredMetrics } from "../../../lib/charts/metricLabels.js";
import { metricNames, prepareMetricSeries, runSeriesKey } from "../../../lib/charts/prepareMetricSeries.js";
import { routes } from "../../../lib/router/parseRoute.js";
import { configDifferences } from "../lib/configDifferences.js";

/** `#/compare?runs=a,b`: the runs' metric charts overlaid, one colour per run, and their config differences. */
export function CompareView({ runIds }: { runIds: number[] }) {
  const api = useApi();
  const [text, setText] = useState(runIds.join(","));
  const data = useQuery(`compare:${runIds.join(",")}`, async () => {
    const runs = await Promise.all(runIds.map((runId) => api.getRun({ runId })));
    const metrics = await Promise.all(runIds.map((runId) => api.getRunMetrics({ runId })));
    return { runs, metrics };
  });
  const allRuns = useQuery("runs", () => api.listRuns({}));

  function apply(event: FormEvent) {
    event.preventDefault();
    const ids = text.split(/[ ,]+/).map(Number).filter((n) => Number.isInteger(n) && n > 0);
    window.location.hash = routes.compare(ids);
  }

  return (
    <section className="view" data-testid="compare-view">
      <h2>Compare runs</h2>
      <form className="filters" onSubmit={apply}>
        <label>
          Runs <input value={text} onChange={(e) => setText(e.target.value)} placeholder="1,2" />
        </label>
        <button type="submit">Compare</button>
        {allRuns.data && <span className="muted small">available: {allRuns.data.map((r) => `#${r.id}`).join(" ") || "none"}</span>}
      </form>
      {runIds.length === 0 && <p className="empty">Name two or more runs to overlay their metrics.</p>}
      {data.error && <ErrorBox error={data.error} onRetry={data.reload} />}
      {runIds.length > 0 && !data.data && !data.error && <Loading what="runs" />}
      {data.data && (
        <>
          <h3>What differs</h3>
          <table className="table compact" data-testid="config-diff">
            <thead>
              <tr>
                <th>key</th>
                {data.data.runs.map((run) => (
                  <th key={run.id}>run #{run.id}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {configDifferences(data.data.runs.map((run) => run.config)).map((diff) => (
                <tr key={diff.key}>
                  <td>{diff.key}</td>
                  {diff.values.map((value, i) => (
                    <td key={i}>{value === undefined ? "–" : JSON.stringify(value)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          <div className="chart-grid">
            {metricNames(data.data.metrics, preferredMetrics).map((name) => (
              <MetricChart
                key={name}
                title={metricLabel(name)}
                rows={prepareMetricSeries(data.data!.metrics, name)}
                series={data.data!.runs.map((run) => ({ key: runSeriesKey(run.id), label: `run #${run.id}${run.name ? ` ${run.name}` : ""}` }))}
              />
            ))}
          </div>
        </>
      )}
    </section>
  );
}
