import type { AdapterView, EvalResultView } from "../../../../../shared/api/modelTypes.js";
import { formatNumber, formatPercent, formatTime } from "../../../lib/format/formatNumber.js";
import { routes } from "../../../lib/router/parseRoute.js";

/** Every stored evaluation, newest first. */
export function EvalHistory({ results, adapters }: { results: EvalResultView[]; adapters: AdapterView[] }) {
  const names = new Map(adapters.map((adapter) => [adapter.id, adapter.name]));
  return (
    <details>
      <summary>All {results.length} evaluations</summary>
      <table className="table compact" data-testid="eval-history">
        <thead>
          <tr>
            <th>Model</th>
            <th>Suite</th>
            <th>n</th>
            <th>Correct</th>
            <th>Accuracy</th>
            <th>Mean return</th>
            <th>Win rate</th>
            <th>When</th>
          </tr>
        </thead>
        <tbody>
          {[...results].reverse().map((result) => (
            <tr key={result.id}>
              <td>{result.adapterId === null ? "base" : <a href={routes.models(result.adapterId)}>{names.get(result.adapterId) ?? `adapter #${result.adapterId}`}</a>}</td>
              <td>{result.suite}</td>
              <td>{result.n}</td>
              <td>{result.correct ?? "–"}</td>
              <td>{formatPercent(result.accuracy)}</td>
              <td>{formatNumber(result.meanReturn)}</td>
              <td>{formatPercent(result.winRate)}</td>
              <td>{formatTime(result.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
