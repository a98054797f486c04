import type { EvalComparison } from "../lib/evals/prepareEvalComparison.js";
import { formatNumber, formatPercent } from "../lib/format/formatNumber.js";
import { routes } from "../lib/router/parseRoute.js";

function Delta({ delta, percent }: { delta: number | null; percent: boolean }) {
  if (delta === null) return null;
  const text = percent ? `${delta >= 0 ? "+" : ""}${(delta * 100).toFixed(1)} pt` : `${delta >= 0 ? "+" : ""}${delta.toFixed(3)}`;
  return <span className={delta > 0 ? "ok small" : delta < 0 ? "bad small" : "muted small"}> {text}</span>;
}

/** Base model vs each adapter: one row per model, one column per suite, the change against base. */
export function EvalComparisonTable({ comparison }: { comparison: EvalComparison }) {
  return (
    <table className="table compact" data-testid="eval-comparison">
      <thead>
        <tr>
          <th>Model</th>
          {comparison.suites.map((suite) => (
            <th key={suite}>{suite}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {comparison.models.map((model) => (
          <tr key={model.key}>
            <td>{model.adapterId === null ? <strong>{model.label}</strong> : <a href={routes.models(model.adapterId)}>{model.label}</a>}</td>
            {comparison.suites.map((suite) => {
              const cell = model.scores[suite];
              if (!cell) return <td key={suite} className="muted">–</td>;
              const percent = cell.metric !== "meanReturn";
              return (
                <td key={suite} title={`${cell.metric}, n = ${cell.n}`}>
                  {percent ? formatPercent(cell.value) : formatNumber(cell.value, 3)}
                  <span className="muted small"> {cell.metric === "accuracy" ? "acc" : cell.metric === "winRate" ? "win" : "return"}</span>
                  <Delta delta={cell.delta} percent={percent} />
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
