import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { formatPercent } from "../../../lib/format/formatNumber.js";
import { ErrorBox } from "../../../components/ErrorBox.js";

/** Held-out evaluation scores of the run's adapters, when any were trained and evaluated. */
export function HeldOutScores({ runId }: { runId: number }) {
  const api = useApi();
  const scores = useQuery(`heldout:${runId}`, async () => {
    const adapters = await api.listAdapters({ runId });
    const results = await Promise.all(adapters.map((adapter) => api.listEvalResults({ adapterId: adapter.id })));
    return adapters.map((adapter, i) => ({ adapter, results: results[i] ?? [] })).filter((entry) => entry.results.length > 0);
  });
  if (scores.error) return <ErrorBox error={scores.error} />;
  if (!scores.data || scores.data.length === 0) return null;
  return (
    <div className="card">
      <h3>Held-out scores per adapter</h3>
      <table className="table">
        <thead>
          <tr>
            <th>Adapter</th>
            <th>Suite</th>
            <th>n</th>
            <th>Accuracy</th>
          </tr>
        </thead>
        <tbody>
          {scores.data.flatMap(({ adapter, results }) =>
            results.map((result) => (
              <tr key={result.id}>
                <td>{adapter.name}</td>
                <td>{result.suite}</td>
                <td>{result.n}</td>
                <td>{formatPercent(result.accuracy)}</td>
              </tr>
            )),
          )}
        </tbody>
      </table>
    </div>
  );
}
