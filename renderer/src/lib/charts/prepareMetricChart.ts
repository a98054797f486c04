// One metric's chart, decided here (the component only draws): its title in words, a 0-1 axis
// for rates, a yes/no axis for a flag, ticks that never repeat a label, durations in words (never
// raw milliseconds), an axis wide enough for its labels, why a chart has nothing to draw, and for a
// single iteration the values themselves instead of lone dots.
import { formatDuration } from "../format/formatNumber.js";
import { axisTicks, type AxisTick } from "./axisTicks.js";
import type { ChartRow } from "./prepareMetricSeries.js";
import { metricLabel } from "./metricLabels.js";

/** How a metric's values read: a percentage, a duration (stored in ms or in seconds), or a number. */
export type MetricValueKind = "rate" | "durationMs" | "durationSeconds" | "number";

/** Metrics that are a 0/1 flag per iteration, with what 0 and 1 mean (drawn as steps between the two, not a line on a fitted axis). */
export const flagMetrics: Record<string, [string, string]> = {
  regeneration: ["replayed", "new"],
};

export interface ChartSeriesRef {
  key: string;
  label: string;
}

export interface SingleValue {
  key: string;
  label: string;
  value: number | null;
  /** The value as shown: a percentage for rates. */
  text: string;
}

export interface PreparedMetricChart {
  title: string;
  /** The value axis's range: [0, 1] for rates and flags, else fitted to the data in round steps; null when there is nothing to draw. */
  domain: [number, number] | null;
  /** The value axis's ticks with their labels (distinct), empty when there is nothing to draw. */
  ticks: AxisTick[];
  rate: boolean;
  /** A 0/1 flag: drawn as steps, its ticks named. */
  flag: boolean;
  rows: ChartRow[];
  /** Set when there is one iteration: show these values, not a line of one point. */
  single: SingleValue[] | null;
  kind: MetricValueKind;
  /** Pixels the value axis needs so its longest label is not clipped. */
  axisWidth: number;
  /** Why there is nothing to draw (no iteration measured the metric), else null. */
  empty: string | null;
}

/** Metrics that are durations: named `...Ms` / `..._ms` (milliseconds) or `...Seconds` / `..._seconds`. */
export function durationKind(name: string): "durationMs" | "durationSeconds" | null {
  if (/(Ms|_ms)$/.test(name)) return "durationMs";
  if (/(Seconds|_seconds|Secs)$|^seconds$/.test(name)) return "durationSeconds";
  return null;
}

/** A value as an axis tick or a single value shows it. */
export function formatMetricValue(value: number | null, kind: MetricValueKind): string {
  if (value === null || !Number.isFinite(value)) return "–";
  if (kind === "rate") return `${(value * 100).toFixed(1)}%`;
  if (kind === "durationMs") return formatDuration(value);
  if (kind === "durationSeconds") return formatDuration(value * 1000);
  if (Math.abs(value) >= 100_000) return `${(value / 1000).toFixed(0)}k`;
  return Math.abs(value) >= 100 || Number.isInteger(value) ? value.toFixed(0) : value.toFixed(3);
}

/** One value of a named metric as a table cell shows it: rates as percentages, durations in words. */
export function formatMetric(name: string, value: number | null | undefined): string {
  const number = value ?? null;
  const kind: MetricValueKind = isRateMetric(name) && (number === null || (number >= 0 && number <= 1)) ? "rate" : (durationKind(name) ?? "number");
  return formatMetricValue(number, kind);
}

/** Why a metric can be missing in every iteration so far (gaps, not zeros). */
const emptyReasons: Record<string, string> = {
  meanRegret: "regret needs plays with and without a hint of the same valid game",
  meanHintWinRate: "no valid game has had hinted plays yet",
  meanWinRate: "no valid game has been played yet",
  designerReward: "the designer's reward is scored once a game's reward window has been played",
  noveltyRate: "novelty is judged on valid games only",
  vendiScore: "diversity needs at least one valid game",
  vendiPerN: "diversity needs at least one valid game",
  loss: "no training round has reported its loss yet",
  ratio: "no training round has reported importance ratios yet",
};

function emptyReason(metric: string): string {
  return `No values yet: ${emptyReasons[metric] ?? "no iteration has measured this metric (a missing value is a gap, not a zero)"}.`;
}

const AXIS_CHAR_PX = 7;
const AXIS_PADDING_PX = 12;

/** Metrics that are fractions in [0, 1]: named `...Rate`, `...Fraction` or `...Share`. */
export function isRateMetric(name: string): boolean {
  return /(Rate|Fraction|Share)$|^(rate|fraction|share)$/.test(name);
}

/** The value axis: a flag's two named ticks, else round steps over the values (whole numbers for counts). */
function valueAxis(values: number[], kind: MetricValueKind, flagNames: [string, string] | null) {
  if (values.length === 0) return { domain: null, ticks: [] };
  if (flagNames) return { domain: [0, 1] as [number, number], ticks: flagNames.map((label, value) => ({ value, label })) };
  return axisTicks(values, { kind, integer: kind === "number" && values.every(Number.isInteger) });
}

/** `title` replaces the metric's own label (a chart of several related series). */
export function prepareMetricChart(metric: string, rows: ChartRow[], series: readonly ChartSeriesRef[], title?: string): PreparedMetricChart {
  const values = rows.flatMap((row) => series.map((s) => row[s.key])).filter((v): v is number => typeof v === "number");
  // A rate outside [0, 1] means the name lied: fit the data rather than cut it off.
  const rate = isRateMetric(metric) && values.every((v) => v >= 0 && v <= 1);
  const flagNames = flagMetrics[metric] && values.every((v) => v === 0 || v === 1) ? flagMetrics[metric] : null;
  const kind: MetricValueKind = rate ? "rate" : (durationKind(metric) ?? "number");
  const { domain, ticks } = valueAxis(values, kind, flagNames);
  const axisWidth = Math.max(40, AXIS_PADDING_PX + AXIS_CHAR_PX * Math.max(0, ...ticks.map((tick) => tick.label.length)));
  const single =
    rows.length === 1
      ? series.map((s) => {
          const value = rows[0]![s.key];
          const number = typeof value === "number" ? value : null;
          const text = flagNames && number !== null ? flagNames[number]! : formatMetricValue(number, kind);
          return { key: s.key, label: s.label, value: number, text };
        })
      : null;
  return { title: title ?? metricLabel(metric), domain, ticks, rate, flag: flagNames !== null, rows, single, kind, axisWidth, empty: values.length === 0 ? emptyReason(metric) : null };
}
