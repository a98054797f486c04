import { HistogramChart } from "../../../components/HistogramChart.js";
import { MetricChart } from "../../../components/MetricChart.js";
import type { RunMetrics } from "../../../../../shared/api/runTypes.js";
import { coreMetrics, preferredMetrics } from "../../../lib/charts/metricLabels.js";
import { prepareMetricChart } from "../../../lib/charts/prepareMetricChart.js";
import { prepareHistogram } from "../../../lib/charts/prepareHistogram.js";
import { metricNames, prepareMetricSeries, runSeriesKey } from "../../../lib/charts/prepareMetricSeries.js";
import { prepareRunCharts } from "../lib/prepareRunCharts.js";

/** One chart per scalar metric that applies to the run (`designerKind`, `hintPlays`: its config's), plus the latest iteration's win-rate histogram. */
export function RunCharts({ metrics, designerKind, hintPlays }: { metrics: RunMetrics; designerKind: string; hintPlays: number | null }) {
  const plan = prepareRunCharts(metricNames([metrics], preferredMetrics, coreMetrics), designerKind, hintPlays);
  const latest = metrics.iterations[metrics.iterations.length - 1];
  const histogram = prepareHistogram(latest?.series.winRateHistogram);
  if (plan.shown.length === 0 && histogram.length === 0) return <p className="empty">No metrics yet: they appear after the first completed iteration.</p>;
  const series = [{ key: runSeriesKey(metrics.runId), label: `run ${metrics.runId}` }];
  return (
    <>
      {plan.hiddenNote && (
        <p className="muted small" data-testid="charts-hidden">
          {plan.hiddenNote}
        </p>
      )}
      <div className="chart-grid">
        {plan.shown.map((name) => (
          <MetricChart key={name} chart={prepareMetricChart(name, prepareMetricSeries([metrics], name), series)} series={series} />
        ))}
        {histogram.length > 0 && latest && <HistogramChart title={`Win-rate distribution (iteration ${latest.iteration})`} bars={histogram} />}
      </div>
    </>
  );
}
