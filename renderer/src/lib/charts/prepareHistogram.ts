// A histogram series (counts per equal-width bin over [0, 1]) -> bar rows.

export interface HistogramBar {
  bin: string;
  count: number;
}

/** Labels bins as "0.0–0.1", ...; an empty or missing series gives no bars. */
export function prepareHistogram(counts: readonly number[] | undefined): HistogramBar[] {
  if (!counts || counts.length === 0) return [];
  const width = 1 / counts.length;
  return counts.map((count, i) => ({
    bin: `${(i * width).toFixed(1)}–${((i + 1) * width).toFixed(1)}`,
    count: Number.isFinite(count) ? count : 0,
  }));
}
