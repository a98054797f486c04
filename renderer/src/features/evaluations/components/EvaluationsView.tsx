import { EvalComparisonTable } from "../../../components/EvalComparisonTable.js";
import { ErrorBox } from "../../../components/ErrorBox.js";
import { GroupedBarChart } from "../../../components/GroupedBarChart.js";
import { Loading } from "../../../components/Loading.js";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { seriesColor } from "../../../lib/charts/metricLabels.js";
import { prepareEvalComparison } from "../../../lib/evals/prepareEvalComparison.js";
import { EvalHistory } from "./EvalHistory.js";

/** `#/evaluations`: held-out results, base model vs each adapter, as a table and a chart. */
export function EvaluationsView() {
  const api = useApi();
  const data = useQuery("evals", async () => {
    const [results, adapters] = await Promise.all([api.listEvalResults({}), api.listAdapters({})]);
    return { results, adapters, comparison: prepareEvalComparison(results, adapters) };
  });
  return (
    <section className="view" data-testid="evaluations-view">
      <h2>Evaluations</h2>
      {data.error && <ErrorBox error={data.error} onRetry={data.reload} />}
      {!data.data && !data.error && <Loading what="evaluations" />}
      {data.data && data.data.results.length === 0 && <p className="empty">No evaluations yet: <code>spade eval --suite &lt;file.jsonl&gt; --config &lt;file.json&gt; [--adapter &lt;id&gt;]</code> stores them here.</p>}
      {data.data && data.data.results.length > 0 && (
        <>
          <h3>Base model vs adapters (latest result per suite)</h3>
          <EvalComparisonTable comparison={data.data.comparison} />
          <GroupedBarChart
            title="Held-out score per suite"
            rows={data.data.comparison.chartRows}
            xKey="suite"
            axis={data.data.comparison.axis}
            series={data.data.comparison.models.map((model, i) => ({ key: model.key, label: model.label, color: seriesColor(i) }))}
          />
          <EvalHistory results={data.data.results} adapters={data.data.adapters} />
        </>
      )}
    </section>
  );
}
