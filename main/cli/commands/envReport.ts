import { validationWarnings, type PlayReport, type ValidationReport } from "../../../shared/environment.js";

function indent(text: string, prefix = "    "): string {
  return text.split("\n").map((line) => prefix + line).join("\n");
}

/** `spade env validate` without --json: one line per check; a failed extra check is a WARN line, not a FAIL. */
export function formatValidationReport(file: string, report: ValidationReport): string {
  const verdict = report.valid ? "VALID" : "INVALID";
  const warnings = validationWarnings(report).length;
  const warned = warnings === 0 ? "" : `, ${warnings} warning${warnings === 1 ? "" : "s"}`;
  const lines = [`${file}: ${verdict}${report.className ? ` (${report.className})` : ""}${warned} in ${report.durationMs} ms`];
  const width = Math.max(...report.checks.map((check) => check.name.length), 0);
  for (const check of report.checks) {
    const where = check.line === undefined ? "" : ` [line ${check.line}]`;
    lines.push(`  ${check.ok ? "PASS" : check.warning ? "WARN" : "FAIL"}  ${check.name.padEnd(width)}  ${check.detail}${where}`);
  }
  return lines.join("\n") + "\n";
}

/** `spade env play` without --json: the episode as a transcript. */
export function formatPlayReport(report: PlayReport): string {
  const lines = [`${report.className || "(no environment)"}, seed ${report.seed}`, "reset:", indent(report.reset.observation), `  info: ${JSON.stringify(report.reset.info)}`];
  report.steps.forEach((step, index) => {
    lines.push(`step ${index + 1}: ${step.action}`);
    lines.push(indent(step.observation));
    lines.push(`  reward ${step.reward}, terminated ${step.terminated}, truncated ${step.truncated}, info ${JSON.stringify(step.info)}`);
  });
  lines.push(`return: ${report.return}`);
  if (report.error) lines.push(`error: ${report.error}`);
  return lines.join("\n") + "\n";
}
