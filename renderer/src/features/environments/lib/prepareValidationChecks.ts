// A validation report -> the rows the validation panel shows: each check passed, failed or (a failed
// extra check outside validator.strict) a warning, which never looks like a failure.
import type { ValidationReport } from "../../../../../shared/environment.js";

export type CheckStatus = "pass" | "fail" | "warning";

export interface ValidationCheckRow {
  key: string;
  name: string;
  status: CheckStatus;
  /** The mark shown before the name: a tick, a cross, or a warning sign. */
  symbol: string;
  detail: string;
  line: number | null;
}

export interface PreparedValidation {
  /** "valid", "valid with 2 warnings" or "invalid". */
  verdict: string;
  valid: boolean;
  warnings: number;
  rows: ValidationCheckRow[];
}

const symbols: Record<CheckStatus, string> = { pass: "✓", fail: "✗", warning: "⚠" };

export function prepareValidationChecks(report: ValidationReport): PreparedValidation {
  const rows = report.checks.map((check, index) => {
    const status: CheckStatus = check.ok ? "pass" : check.warning ? "warning" : "fail";
    return { key: `${check.name}-${index}`, name: check.name, status, symbol: symbols[status], detail: check.detail, line: check.line ?? null };
  });
  const warnings = rows.filter((row) => row.status === "warning").length;
  const verdict = !report.valid ? "invalid" : warnings === 0 ? "valid" : `valid with ${warnings} warning${warnings === 1 ? "" : "s"}`;
  return { verdict, valid: report.valid, warnings, rows };
}
