import type { RunComparisonView } from "../../../../../shared/api/compareTypes.js";
import { renderComparisonTable, tableFormats, type TableFormat } from "../../../../../shared/comparisonTable.js";
import { formatNumber } from "../../../lib/format/formatNumber.js";
import { tableFileName } from "../lib/prepareHeldOut.js";

const pct = (value: number) => `${(value * 100).toFixed(1)}`;

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.click();
  URL.revokeObjectURL(url);
}

/** The paper's table: runs x held-out suites (percent, 95% interval), the mean, the difference to the chosen baseline; exportable. */
export function HeldOutTable({ view, baseline, onBaseline }: { view: RunComparisonView; baseline: number | null; onBaseline: (runId: number | null) => void }) {
  const { table } = view;
  const runIds = view.runs.map((run) => run.id);
  return (
    <div data-testid="held-out-table">
      <div className="filters">
        <label>
          Baseline{" "}
          <select value={baseline ?? ""} onChange={(e) => onBaseline(e.target.value === "" ? null : Number(e.target.value))} aria-label="baseline run">
            <option value="">none</option>
            {view.runs.map((run) => (
              <option key={run.id} value={run.id}>
                #{run.id} {run.name ?? ""}
              </option>
            ))}
          </select>
        </label>
        {tableFormats.map((format: TableFormat) => (
          <button key={format} type="button" disabled={table.suites.length === 0} onClick={() => download(tableFileName(runIds, format), renderComparisonTable(table, format))}>
            Export {format === "csv" ? "CSV" : format === "markdown" ? "Markdown" : "LaTeX"}
          </button>
        ))}
      </div>
      {table.suites.length === 0 ? (
        <p className="empty">No held-out scores yet: evaluate the runs' adapters (spade eval, or training.eval in the run config).</p>
      ) : (
        <table className="table compact">
          <caption className="muted small">Percent; 95% bootstrap interval over items; the latest evaluated adapter of each run. * = mean over fewer suites.</caption>
          <thead>
            <tr>
              <th>Run</th>
              {table.labels.map((label) => (
                <th key={label}>{label}</th>
              ))}
              <th>Mean</th>
              {table.baselineRunId !== null && <th>Δ mean vs #{table.baselineRunId}</th>}
            </tr>
          </thead>
          <tbody>
            {table.rows.map((row) => (
              <tr key={row.runId}>
                <td>
                  #{row.runId} {row.name ?? ""} <span className="muted small">{row.badges.join(", ") || "SPADE"}</span>
                </td>
                {row.cells.map((cell, i) => (
                  <td key={table.suites[i]} title={cell ? `n = ${cell.n}${cell.afterIteration === null ? "" : `, after rollout ${cell.afterIteration}`}` : "not evaluated"}>
                    {cell === null ? "–" : pct(cell.score)}
                    {cell?.interval && <span className="muted small"> [{pct(cell.interval[0])}, {pct(cell.interval[1])}]</span>}
                    {row.diff?.[i] != null && <span className="muted small"> ({row.diff[i]! >= 0 ? "+" : ""}{pct(row.diff[i]!)})</span>}
                  </td>
                ))}
                <td>
                  {row.mean === null ? "–" : pct(row.mean)}
                  {row.mean !== null && !row.complete && "*"}
                </td>
                {table.baselineRunId !== null && <td>{row.meanDiff === null ? "–" : `${row.meanDiff >= 0 ? "+" : ""}${formatNumber(row.meanDiff * 100, 1)}`}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
