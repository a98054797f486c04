// The paper's comparison table, for any set of runs: rows = runs (with their badges), columns =
// held-out suites, cells = the score of the run's latest evaluated adapter with its 95% interval,
// the mean over suites, and the difference to a chosen baseline run; plus the held-out curves over
// rollouts. Pure: `spade compare` and the Compare page build and render it the same way.

/** One held-out evaluation of a run's model. */
export interface HeldOutPoint {
  /** The suite's key as stored (its path or name). */
  suite: string;
  score: number;
  /** The 95% interval (`scoreInterval`: Wilson's for items scored 0 or 1, else the bootstrap) over the suite's items; null when the stored items do not say. */
  interval: [number, number] | null;
  /** Items evaluated. */
  n: number;
  /** The rollout after which the evaluated adapter was trained; null for an adapter not made by a training round. */
  afterIteration: number | null;
  createdAt: number;
}

export interface ComparisonRunInput {
  id: number;
  name: string | null;
  badges: string[];
  heldOut: HeldOutPoint[];
}

export interface ComparisonCell {
  score: number;
  interval: [number, number] | null;
  n: number;
  afterIteration: number | null;
}

export interface ComparisonRow {
  runId: number;
  name: string | null;
  badges: string[];
  /** One per suite column, null where the run has no score (a gap, not a zero). */
  cells: (ComparisonCell | null)[];
  /** The mean over the suites the run has a score on; null with none. */
  mean: number | null;
  /** Whether every suite column has a score (otherwise the mean is over fewer suites). */
  complete: boolean;
  /** Score minus the baseline run's, per suite (null where either is missing); null without a baseline. */
  diff: (number | null)[] | null;
  /** The mean minus the baseline's mean, over the suites both have. */
  meanDiff: number | null;
}

export interface ComparisonTable {
  /** Suite keys, in column order (sorted by label). */
  suites: string[];
  /** Short column labels (the file name without folder and extension, unless two suites share it). */
  labels: string[];
  baselineRunId: number | null;
  rows: ComparisonRow[];
}

export interface HeldOutCurve {
  suite: string;
  label: string;
  /** One line per run: the score after each evaluated training round, in rollout order. */
  series: { runId: number; name: string | null; points: { iteration: number; score: number }[] }[];
}

export type TableFormat = "csv" | "markdown" | "latex";
export const tableFormats: readonly TableFormat[] = ["csv", "markdown", "latex"];

/** The point a cell shows: the run's latest adapter (by the rollout it followed, then by time). */
function latest(points: HeldOutPoint[]): HeldOutPoint {
  return points.reduce((best, point) => {
    const a = best.afterIteration ?? -1;
    const b = point.afterIteration ?? -1;
    return b > a || (b === a && point.createdAt >= best.createdAt) ? point : best;
  });
}

function suiteLabels(suites: string[]): string[] {
  const short = suites.map((suite) => suite.split(/[\\/]/).pop()!.replace(/\.(jsonl|json)$/, ""));
  return short.map((label, i) => (short.filter((other) => other === label).length > 1 ? suites[i]! : label));
}

function mean(values: number[]): number | null {
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

/** The table for these runs; `baselineRunId` (one of them) gives the difference columns. */
export function buildComparisonTable(runs: readonly ComparisonRunInput[], baselineRunId: number | null = null): ComparisonTable {
  if (baselineRunId !== null && !runs.some((run) => run.id === baselineRunId)) throw new RangeError(`the baseline run ${baselineRunId} is not one of the compared runs (${runs.map((run) => run.id).join(", ")})`);
  const keys = [...new Set(runs.flatMap((run) => run.heldOut.map((point) => point.suite)))];
  const labelOf = new Map(keys.map((key, i) => [key, suiteLabels(keys)[i]!]));
  const suites = keys.sort((a, b) => labelOf.get(a)!.localeCompare(labelOf.get(b)!) || a.localeCompare(b));
  const rows = runs.map((run) => {
    const cells = suites.map((suite): ComparisonCell | null => {
      const points = run.heldOut.filter((point) => point.suite === suite);
      if (points.length === 0) return null;
      const { score, interval, n, afterIteration } = latest(points);
      return { score, interval, n, afterIteration };
    });
    const scores = cells.filter((cell): cell is ComparisonCell => cell !== null).map((cell) => cell.score);
    return { runId: run.id, name: run.name, badges: run.badges, cells, mean: mean(scores), complete: scores.length === suites.length, diff: null as (number | null)[] | null, meanDiff: null as number | null };
  });
  const baseline = rows.find((row) => row.runId === baselineRunId);
  if (baseline) {
    for (const row of rows) {
      row.diff = row.cells.map((cell, i) => (cell && baseline.cells[i] ? cell.score - baseline.cells[i]!.score : null));
      const shared = row.cells.flatMap((cell, i) => (cell && baseline.cells[i] ? [[cell.score, baseline.cells[i]!.score] as const] : []));
      row.meanDiff = shared.length === 0 ? null : mean(shared.map(([a]) => a))! - mean(shared.map(([, b]) => b))!;
    }
  }
  return { suites, labels: suites.map((suite) => labelOf.get(suite)!), baselineRunId, rows };
}

/** Held-out scores over rollouts, one line per run per suite (adapters a training round made). */
export function buildHeldOutCurves(runs: readonly ComparisonRunInput[]): HeldOutCurve[] {
  const table = buildComparisonTable(runs);
  return table.suites.map((suite, i) => ({
    suite,
    label: table.labels[i]!,
    series: runs.map((run) => ({
      runId: run.id,
      name: run.name,
      points: run.heldOut
        .filter((point) => point.suite === suite && point.afterIteration !== null)
        .sort((a, b) => a.afterIteration! - b.afterIteration! || a.createdAt - b.createdAt)
        .map((point) => ({ iteration: point.afterIteration!, score: point.score })),
    })),
  }));
}

const latexEscapes: Record<string, string> = { "\\": "\\textbackslash{}", "&": "\\&", "%": "\\%", $: "\\$", "#": "\\#", _: "\\_", "{": "\\{", "}": "\\}", "~": "\\textasciitilde{}", "^": "\\textasciicircum{}", Δ: "$\\Delta$" };

const pct = (value: number) => (value * 100).toFixed(1);
const signed = (value: number) => `${value >= 0 ? "+" : "-"}${pct(Math.abs(value))}`;

function runLabel(row: ComparisonRow): string {
  return `run ${row.runId}${row.name ? ` ${row.name}` : ""}`;
}

/** The table as text: scores in percent, "score [low, high]" cells, "-" for gaps. */
export function renderComparisonTable(table: ComparisonTable, format: TableFormat): string {
  const withDiff = table.baselineRunId !== null;
  const header = ["run", "badges", ...table.labels, "mean", ...(withDiff ? [...table.labels.map((label) => `Δ ${label}`), "Δ mean"] : [])];
  const body = table.rows.map((row) => [
    runLabel(row),
    row.badges.join("; ") || "SPADE",
    ...row.cells.map((cell) => (cell === null ? "-" : `${pct(cell.score)}${cell.interval ? ` [${pct(cell.interval[0])}, ${pct(cell.interval[1])}]` : ""}`)),
    row.mean === null ? "-" : `${pct(row.mean)}${row.complete ? "" : "*"}`,
    ...(withDiff ? [...(row.diff ?? []).map((d) => (d === null ? "-" : signed(d))), row.meanDiff === null ? "-" : signed(row.meanDiff)] : []),
  ]);
  if (format === "csv") {
    // One column per number (score, interval low and high per suite), for spreadsheets and pandas.
    const quote = (text: string) => (/[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);
    const csvHeader = ["run", "badges", ...table.labels.flatMap((label) => [label, `${label} low`, `${label} high`]), "mean", ...(withDiff ? [...table.labels.map((label) => `Δ ${label}`), "Δ mean"] : [])];
    const csvBody = table.rows.map((row, r) => [
      ...body[r]!.slice(0, 2),
      ...row.cells.flatMap((cell) => (cell === null ? ["", "", ""] : [pct(cell.score), cell.interval ? pct(cell.interval[0]) : "", cell.interval ? pct(cell.interval[1]) : ""])),
      row.mean === null ? "" : pct(row.mean),
      ...(withDiff ? [...(row.diff ?? []).map((d) => (d === null ? "" : signed(d))), row.meanDiff === null ? "" : signed(row.meanDiff)] : []),
    ]);
    return [csvHeader, ...csvBody].map((cells) => cells.map(quote).join(",")).join("\n") + "\n";
  }
  if (format === "markdown") {
    const escape = (text: string) => text.replaceAll("|", "\\|");
    return [header, header.map(() => "---"), ...body].map((cells) => `| ${cells.map(escape).join(" | ")} |`).join("\n") + "\n";
  }
  const tex = (text: string) => [...text].map((c) => latexEscapes[c] ?? c).join("");
  return [
    `\\begin{tabular}{ll${"r".repeat(header.length - 2)}}`,
    "\\toprule",
    `${header.map(tex).join(" & ")} \\\\`,
    "\\midrule",
    ...body.map((cells) => `${cells.map(tex).join(" & ")} \\\\`),
    "\\bottomrule",
    "\\end{tabular}",
    "",
  ].join("\n");
}
