import { ErrorBox } from "../../../components/ErrorBox.js";
import { EvalComparisonTable } from "../../../components/EvalComparisonTable.js";
import { GroupedBarChart } from "../../../components/GroupedBarChart.js";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { seriesColor } from "../../../lib/charts/metricLabels.js";
import { prepareEvalComparison } from "../../../lib/evals/prepareEvalComparison.js";

/** Held-out scores of the run's adapters against the base model, when any were trained and evaluated. */
export function HeldOutScores({ runId }: { runId: number }) {
  const api = useApi();
  const scores = useQuery(`heldout:${runId}`, async () => {
    const [adapters, all] = await Promise.all([api.listAdapters({ runId }), api.listEvalResults({})]);
    const ids = new Set(adapters.map((adapter) => adapter.id));
    const mine = all.filter((result) => result.adapterId !== null && ids.has(result.adapterId));
    const suites = new Set(mine.map((result) => result.suite));
    const base = all.filter((result) => result.adapterId === null && suites.has(result.suite));
    return mine.length === 0 ? null : prepareEvalComparison([...base, ...mine], adapters);
  });
  if (scores.error) return <ErrorBox error={scores.error} />;
  if (!scores.data) return null;
  const comparison = scores.data;
  return (
    <div className="card" data-testid="held-out-scores">
      <h3>Held-out scores per adapter</h3>
      <EvalComparisonTable comparison={comparison} />
      <GroupedBarChart title="Held-out score per suite" rows={comparison.chartRows} xKey="suite" axis={comparison.axis} series={comparison.models.map((model, i) => ({ key: model.key, label: model.label, color: seriesColor(i) }))} />
    </div>
  );
}
