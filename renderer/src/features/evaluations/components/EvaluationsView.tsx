import { ErrorBox } from "../../../components/ErrorBox.js";
import { Loading } from "../../../components/Loading.js";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { formatNumber, formatPercent, formatTime } from "../../../lib/format/formatNumber.js";

/** `#/evaluations`: held-out results of the base model and each adapter. */
export function EvaluationsView() {
  const api = useApi();
  const results = useQuery("evals", () => api.listEvalResults({}));
  return (
    <section className="view" data-testid="evaluations-view">
      <h2>Evaluations</h2>
      {results.error && <ErrorBox error={results.error} onRetry={results.reload} />}
      {!results.data && !results.error && <Loading what="evaluations" />}
      {results.data && results.data.length === 0 && <p className="empty">No evaluations yet (`spade eval`).</p>}
      {results.data && results.data.length > 0 && (
        <table className="table compact">
          <thead>
            <tr>
              <th>Model</th>
              <th>Suite</th>
              <th>n</th>
              <th>Accuracy</th>
              <th>Mean return</th>
              <th>Win rate</th>
              <th>When</th>
            </tr>
          </thead>
          <tbody>
            {results.data.map((result) => (
              <tr key={result.id}>
                <td>{result.adapterId === null ? "base" : `adapter #${result.adapterId}`}</td>
                <td>{result.suite}</td>
                <td>{result.n}</td>
                <td>{formatPercent(result.accuracy)}</td>
                <td>{formatNumber(result.meanReturn)}</td>
                <td>{formatPercent(result.winRate)}</td>
                <td>{formatTime(result.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
