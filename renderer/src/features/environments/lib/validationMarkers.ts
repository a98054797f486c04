// Validation checks -> editor markers: failing checks that name a line become squiggles there;
// those without a line are flagged on line 1 so they are never silently lost. A warning (a failed
// extra check that does not invalidate the game) is a warning marker, not an error.
import type { ValidationReport } from "../../../../../shared/environment.js";

export interface EditorMarker {
  line: number;
  message: string;
  severity: "error" | "warning";
}

export function validationMarkers(report: ValidationReport | null, lineCount: number): EditorMarker[] {
  if (!report) return [];
  const lastLine = Math.max(1, lineCount);
  return report.checks
    .filter((check) => !check.ok)
    .map((check) => ({
      line: check.line !== undefined && Number.isInteger(check.line) && check.line >= 1 ? Math.min(check.line, lastLine) : 1,
      message: `${check.name}: ${check.detail}`,
      severity: check.warning ? ("warning" as const) : ("error" as const),
    }));
}
