import { renderComparisonTable } from "../../shared/comparisonTable.js";
import type { RunComparison } from "./compareRuns.js";

/** Column headings of the per-iteration table, in `comparedMetrics` order after the iteration. */
const columns = [
  { key: "validityRate", heading: "validity" },
  { key: "meanRegret", heading: "regret" },
  { key: "meanWinRate", heading: "win rate" },
  { key: "designerReward", heading: "designer reward" },
  { key: "noveltyRate", heading: "novelty" },
  { key: "vendiPerN", heading: "Vendi / n" },
] as const;

const fmt = (value: number | null) => (value === null ? "-" : value.toFixed(3));

/**
 * `spade compare`'s text: per run a summary line and its loop metrics per iteration (numbered as
 * stored, from 0, as the report and the workbench number them), then the config keys that differ
 * and the held-out table.
 */
export function formatComparison(comparison: RunComparison): string {
  const out: string[] = [];
  for (const run of comparison.runs) {
    const s = run.summary;
    out.push(
      `run ${run.id}${run.name ? ` "${run.name}"` : ""} (${run.ablations.join(", ") || "SPADE recipe"}): ${s.iterations} iterations, validity ${fmt(s.validityRate)}, regret ${fmt(s.meanRegret)}, win rate ${fmt(s.meanWinRate)}, designer reward ${fmt(s.designerReward)}, novelty ${fmt(s.noveltyRate)}, diversity (Vendi / n) ${fmt(s.vendiPerN)}`,
    );
    if (run.iterations.length === 0) continue;
    const rows = [["iteration", ...columns.map((column) => column.heading)], ...run.iterations.map((row) => [String(row.iteration), ...columns.map((column) => fmt(row[column.key]))])];
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
    for (const row of rows) out.push(`  ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ")}`);
  }
  if (comparison.configDiff.length > 0) out.push("config keys that differ:");
  for (const diff of comparison.configDiff) out.push(`  ${diff.key}: ${diff.values.map((v) => JSON.stringify(v) ?? "unset").join(" | ")}`);
  let text = `${out.join("\n")}\n`;
  if (comparison.table.suites.length > 0) text += `\nheld-out (percent, 95% interval; * = not every suite):\n${renderComparisonTable(comparison.table, "markdown")}`;
  return text;
}
