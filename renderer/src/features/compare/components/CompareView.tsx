import { useState, type FormEvent } from "react";
import { ErrorBox } from "../../../components/ErrorBox.js";
import { Loading } from "../../../components/Loading.js";
import { MetricChart } from "../../../components/MetricChart.js";
import { prepareMetricChart } from "../../../lib/charts/prepareMetricChart.js";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { seriesColor } from "../../../lib/charts/metricLabels.js";
import { runSeriesKey } from "../../../lib/charts/prepareMetricSeries.js";
import { routes } from "../../../lib/router/parseRoute.js";
import { comparedMetricNames, designerChartsNote, prepareComparisonSeries } from "../lib/prepareComparison.js";
import { ComparedRunsTable } from "./ComparedRunsTable.js";
import { HeldOutTable } from "./HeldOutTable.js";
import { drawnHeldOutCurves, prepareHeldOutCurve } from "../lib/prepareHeldOut.js";
import { ConfigDiffTable } from "./ConfigDiffTable.js";

/** `#/compare?runs=a,b`: the runs' metric charts overlaid, one colour per run, and their config differences. */
export function CompareView({ runIds }: { runIds: number[] }) {
  const api = useApi();
  const [text, setText] = useState(runIds.join(","));
  const [baseline, setBaseline] = useState<number | null>(null);
  const baselineRunId = baseline !== null && runIds.includes(baseline) ? baseline : null;
  const comparison = useQuery(`compare:${runIds.join(",")}:${baselineRunId ?? ""}`, () => (runIds.length === 0 ? Promise.resolve(null) : api.compareRuns({ runIds, baselineRunId })));
  const allRuns = useQuery("runs", () => api.listRuns({}));

  function apply(event: FormEvent) {
    event.preventDefault();
    const ids = text.split(/[ ,]+/).map(Number).filter((n) => Number.isInteger(n) && n > 0);
    window.location.hash = routes.compare(ids);
  }

  const view = comparison.data;
  const designerNote = view ? designerChartsNote(view) : null;
  const series = view?.runs.map((run, i) => ({ key: runSeriesKey(run.id), label: `#${run.id}${run.name ? ` ${run.name}` : ""}`, color: seriesColor(i) })) ?? [];
  return (
    <section className="view" data-testid="compare-view">
      <h2>Compare runs</h2>
      <form className="filters" onSubmit={apply}>
        <label>
          Runs <input value={text} onChange={(e) => setText(e.target.value)} placeholder="1,2" aria-label="run ids" />
        </label>
        <button type="submit">Compare</button>
        {allRuns.data && (
          <span className="muted small">
            available:{" "}
            {allRuns.data.map((r) => (
              <button key={r.id} type="button" className="link-button" onClick={() => setText((t) => [...new Set([...t.split(/[ ,]+/).filter(Boolean), String(r.id)])].join(","))}>
                #{r.id}
              </button>
            ))}
          </span>
        )}
      </form>
      {runIds.length === 0 && <p className="empty">Name two or more runs to overlay their metrics.</p>}
      {comparison.error && <ErrorBox error={comparison.error} onRetry={comparison.reload} />}
      {runIds.length > 0 && !view && !comparison.error && <Loading what="runs" />}
      {view && (
        <>
          <ComparedRunsTable view={view} />
          <h3>Held-out suites</h3>
          <HeldOutTable view={view} baseline={baselineRunId} onBaseline={setBaseline} />
          <h3>What differs</h3>
          <ConfigDiffTable view={view} />
          <h3>Metrics per iteration</h3>
          {designerNote && (
            <p className="muted small" data-testid="compare-charts-hidden">
              {designerNote}
            </p>
          )}
          <div className="chart-grid">
            {comparedMetricNames(view).map((name) => (
              <MetricChart key={name} chart={prepareMetricChart(name, prepareComparisonSeries(view, name), series)} series={series} />
            ))}
          </div>
          {drawnHeldOutCurves(view.curves).length > 0 && <h3>Held-out scores over rollouts</h3>}
          <div className="chart-grid">
            {drawnHeldOutCurves(view.curves).map((curve) => (
              <MetricChart key={curve.suite} chart={prepareMetricChart(curve.label, prepareHeldOutCurve(curve), series)} series={series} />
            ))}
          </div>
        </>
      )}
    </section>
  );
}
