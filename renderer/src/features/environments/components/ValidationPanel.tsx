import type { ValidationReport } from "../../../../../shared/environment.js";

export function ValidationPanel({ report, title }: { report: ValidationReport | null; title: string }) {
  if (!report) return <p className="muted">No validation report.</p>;
  return (
    <div className="validation" data-testid="validation-panel">
      <h4>
        {title}: <span className={report.valid ? "ok" : "bad"}>{report.valid ? "valid" : "invalid"}</span>
        <span className="muted small"> · {Math.round(report.durationMs)} ms</span>
      </h4>
      <ul className="checks">
        {report.checks.map((check, i) => (
          <li key={`${check.name}-${i}`} className={check.ok ? "ok" : "bad"}>
            {check.ok ? "✓" : "✗"} <strong>{check.name}</strong>
            {check.line !== undefined && <span className="muted"> (line {check.line})</span>}
            {check.detail && <span className="detail"> — {check.detail}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}
