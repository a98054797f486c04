// One metric's chart, decided here (the component only draws): its title in words, a 0-1 axis
// for rates, and for a single iteration the values themselves instead of lone dots.
import type { ChartRow } from "./prepareMetricSeries.js";
import { metricLabel } from "./metricLabels.js";

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
  /** [0, 1] for rates (fractions); null: fit the data. */
  domain: [number, number] | null;
  rate: boolean;
  rows: ChartRow[];
  /** Set when there is one iteration: show these values, not a line of one point. */
  single: SingleValue[] | null;
}

/** Metrics that are fractions in [0, 1]: named `...Rate`, `...Fraction` or `...Share`. */
export function isRateMetric(name: string): boolean {
  return /(Rate|Fraction|Share)$|^(rate|fraction|share)$/.test(name);
}

function formatValue(value: number | null, rate: boolean): string {
  if (value === null) return "–";
  if (rate) return `${(value * 100).toFixed(1)}%`;
  return Math.abs(value) >= 100 || Number.isInteger(value) ? value.toFixed(0) : value.toFixed(3);
}

/** `title` replaces the metric's own label (a chart of several related series). */
export function prepareMetricChart(metric: string, rows: ChartRow[], series: readonly ChartSeriesRef[], title?: string): PreparedMetricChart {
  const values = rows.flatMap((row) => series.map((s) => row[s.key])).filter((v): v is number => typeof v === "number");
  // A rate outside [0, 1] means the name lied: fit the data rather than cut it off.
  const rate = isRateMetric(metric) && values.every((v) => v >= 0 && v <= 1);
  const single =
    rows.length === 1
      ? series.map((s) => {
          const value = rows[0]![s.key];
          const number = typeof value === "number" ? value : null;
          return { key: s.key, label: s.label, value: number, text: formatValue(number, rate) };
        })
      : null;
  return { title: title ?? metricLabel(metric), domain: rate ? [0, 1] : null, rate, rows, single };
}
