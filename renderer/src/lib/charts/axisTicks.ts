// A value axis's domain and ticks, chosen here rather than by the chart library: steps of 1, 2,
// 2.5 or 5 times a power of ten, each label printed with the digits its step needs (so no two
// ticks read the same, as five ticks of "1.6 min" did), whole numbers for counts, and a duration
// axis in one unit.
import type { MetricValueKind } from "./prepareMetricChart.js";

export interface AxisTick {
  value: number;
  label: string;
}

export interface AxisTicks {
  domain: [number, number];
  ticks: AxisTick[];
}

export interface AxisTickOptions {
  kind: MetricValueKind;
  /** Every value is a whole number (a count): ticks one apart at least. Defaults to false. */
  integer?: boolean;
  /** About this many intervals. Defaults to 4. */
  intervals?: number;
}

const durationUnits = [
  { unit: "h", ms: 3_600_000 },
  { unit: "min", ms: 60_000 },
  { unit: "s", ms: 1000 },
  { unit: "ms", ms: 1 },
];

/** The smallest of 1, 2, 2.5, 5 x 10^k at least `raw`. */
function niceStep(raw: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  for (const factor of [1, 2, 2.5, 5, 10]) if (factor * magnitude >= raw * (1 - 1e-9)) return factor * magnitude;
  return 10 * magnitude;
}

/** Digits after the point that print every multiple of `step` exactly. */
function decimalsOf(step: number): number {
  for (let digits = 0; digits < 10; digits++) if (Math.abs(Math.round(step * 10 ** digits) - step * 10 ** digits) < 1e-6) return digits;
  return 10;
}

/** The scale and unit labels are printed in: a duration in the unit of its largest value, a large number in thousands. */
function unitOf(kind: MetricValueKind, largest: number): { scale: number; suffix: string } {
  if (kind === "durationMs" || kind === "durationSeconds") {
    const ms = kind === "durationSeconds" ? largest * 1000 : largest;
    const unit = durationUnits.find((u) => ms >= u.ms) ?? durationUnits[durationUnits.length - 1]!;
    return { scale: (kind === "durationSeconds" ? 1000 : 1) / unit.ms, suffix: ` ${unit.unit}` };
  }
  if (kind === "rate") return { scale: 100, suffix: "%" };
  if (largest >= 100_000) return { scale: 1 / 1000, suffix: "k" };
  return { scale: 1, suffix: "" };
}

/** The axis for `values` (at least one): rates on 0..100%, anything else fitted to round steps. */
export function axisTicks(values: readonly number[], options: AxisTickOptions): AxisTicks {
  const { kind, integer = false, intervals = 4 } = options;
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (kind === "rate") {
    lo = 0;
    hi = 1;
  } else if (lo === hi) {
    const pad = integer ? 1 : lo === 0 ? 1 : Math.abs(lo) * 0.1;
    hi += pad;
    // A measure that never went below zero keeps its axis there.
    lo = lo >= 0 && lo - pad < 0 ? 0 : lo - pad;
  }
  const { scale, suffix } = unitOf(kind, Math.max(Math.abs(lo), Math.abs(hi)));
  // Steps are chosen in the printed unit, so their labels differ.
  let step = niceStep((hi - lo) * scale / intervals);
  if (integer && kind !== "rate") step = Math.max(step, scale);
  const first = Math.floor((lo * scale) / step + 1e-9);
  const last = Math.ceil((hi * scale) / step - 1e-9);
  const digits = decimalsOf(step);
  const ticks: AxisTick[] = [];
  for (let i = first; i <= last; i++) {
    const printed = i * step;
    ticks.push({ value: printed / scale, label: `${printed.toFixed(digits)}${suffix}` });
  }
  return { domain: [ticks[0]!.value, ticks[ticks.length - 1]!.value], ticks };
}
