import type { RunComparisonView } from "../../../../../shared/api/compareTypes.js";
import { formatConfigValue } from "../lib/prepareComparison.js";

/** The config keys whose values differ between the runs (from the engine's configDiff). */
export function ConfigDiffTable({ view }: { view: RunComparisonView }) {
  if (view.configDiff.length === 0) return <p className="muted">The configs are identical.</p>;
  return (
    <table className="table compact" data-testid="config-diff">
      <thead>
        <tr>
          <th>key</th>
          {view.runs.map((run) => (
            <th key={run.id}>run #{run.id}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {view.configDiff.map((diff) => (
          <tr key={diff.key}>
            <td>
              <code>{diff.key}</code>
            </td>
            {diff.values.map((value, i) => (
              <td key={i} className={value.set ? undefined : "muted"}>
                {formatConfigValue(value)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
