/** A number for a table cell: "–" for missing, fixed digits otherwise. */
export function formatNumber(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "–";
  return value.toFixed(digits);
}

/** A fraction as a percentage: 0.4567 -> "45.7%". */
export function formatPercent(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "–";
  return `${(value * 100).toFixed(digits)}%`;
}

/** A millisecond timestamp as local date and time. */
export function formatTime(ms: number | null | undefined): string {
  if (!ms) return "–";
  return new Date(ms).toLocaleString();
}
