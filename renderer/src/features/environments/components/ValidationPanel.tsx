import type { ValidationReport } from "../../../../../shared/environment.js";
import { formatDuration } from "../../../lib/format/formatNumber.js";
import { prepareValidationChecks } from "../lib/prepareValidationChecks.js";
import { TextWithCode } from "../../../components/TextWithCode.js";

const statusClass = { pass: "ok", fail: "bad", warning: "warn" } as const;

export function ValidationPanel({ report, title }: { report: ValidationReport | null; title: string }) {
  if (!report) return <p className="muted">No validation report.</p>;
  const prepared = prepareValidationChecks(report);
  return (
    <div className="validation" data-testid="validation-panel">
      <h4>
        {title}: <span className={prepared.valid ? (prepared.warnings > 0 ? "warn" : "ok") : "bad"}>{prepared.verdict}</span>
        <span className="muted small"> · {formatDuration(report.durationMs)}</span>
      </h4>
      <ul className="checks">
        {prepared.rows.map((row) => (
          <li key={row.key} className={statusClass[row.status]} data-status={row.status}>
            {row.symbol} <strong>{row.name}</strong>
            {row.status === "warning" && <span className="muted"> (warning: this project's check, not the reference's rule)</span>}
            {row.line !== null && <span className="muted"> (line {row.line})</span>}
            {row.detail && <span className="detail"> — <TextWithCode text={row.detail} /></span>}
          </li>
        ))}
      </ul>
    </div>
  );
}
