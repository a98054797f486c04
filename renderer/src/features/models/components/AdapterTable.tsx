import type { AdapterView } from "../../../../../shared/api/modelTypes.js";
import type { EvalComparison } from "../../../lib/evals/prepareEvalComparison.js";
import { modelKey } from "../../../lib/evals/prepareEvalComparison.js";
import { formatNumber, formatPercent, formatTime } from "../../../lib/format/formatNumber.js";
import { routes } from "../../../lib/router/parseRoute.js";
import { orderByLineage } from "../lib/orderByLineage.js";

/** Adapters as a lineage tree, with their latest held-out score per suite. */
export function AdapterTable({ adapters, comparison, selected }: { adapters: AdapterView[]; comparison: EvalComparison; selected: number | null }) {
  const scores = new Map(comparison.models.map((model) => [model.key, model.scores]));
  return (
    <table className="table compact" data-testid="adapters-table">
      <thead>
        <tr>
          <th>Adapter (lineage)</th>
          <th>Run</th>
          <th>Status</th>
          <th>Base model</th>
          {comparison.suites.map((suite) => (
            <th key={suite}>{suite}</th>
          ))}
          <th>Created</th>
        </tr>
      </thead>
      <tbody>
        {orderByLineage(adapters).map(({ adapter, depth }) => (
          <tr key={adapter.id} className={adapter.id === selected ? "selected" : undefined} data-adapter-id={adapter.id}>
            <td style={{ paddingLeft: 8 + depth * 18 }}>
              {depth > 0 && <span className="muted">└ </span>}
              <a href={routes.models(adapter.id)}>
                #{adapter.id} {adapter.name}
              </a>
            </td>
            <td>{adapter.runId !== null ? <a href={routes.run(adapter.runId)}>#{adapter.runId}</a> : "–"}</td>
            <td>{adapter.status ?? "–"}</td>
            <td className="mono small" title={adapter.baseModelSha256 ?? undefined}>
              {adapter.baseModelSha256 ? adapter.baseModelSha256.slice(0, 12) : "–"}
            </td>
            {comparison.suites.map((suite) => {
              const cell = scores.get(modelKey(adapter.id))?.[suite];
              return <td key={suite}>{cell ? (cell.metric === "meanReturn" ? formatNumber(cell.value, 3) : formatPercent(cell.value)) : "–"}</td>;
            })}
            <td>{formatTime(adapter.createdAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
