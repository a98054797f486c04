import { bootstrapInterval, type BootstrapOptions } from "./bootstrapInterval.js";

/**
 * The interval of a held-out score (a mean over items): Wilson's score interval when every item
 * scores 0 or 1 (a share of items right, a binomial proportion: it never collapses to [0, 0] for
 * 0/n nor to [1, 1] for n/n, as the bootstrap does), else the percentile bootstrap of the mean.
 * [0, 0] for no items.
 */
export function scoreInterval(scores: readonly number[], options: BootstrapOptions = {}): [number, number] {
  if (scores.length > 0 && scores.every((score) => score === 0 || score === 1)) {
    return wilsonInterval(scores.filter((score) => score === 1).length, scores.length, options.level ?? 0.95);
  }
  return bootstrapInterval(scores, options);
}

/** Wilson's score interval of `successes` out of `n` at coverage `level` (Wilson 1927); [0, 0] for n = 0. */
export function wilsonInterval(successes: number, n: number, level = 0.95): [number, number] {
  if (n === 0) return [0, 0];
  const z = normalQuantile(1 - (1 - level) / 2);
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/**
 * The standard normal quantile (Acklam's rational approximation, relative error below 1.2e-9):
 * 1.959964 for 0.975.
 */
export function normalQuantile(q: number): number {
  if (!(q > 0 && q < 1)) throw new RangeError(`normalQuantile: expected 0 < q < 1, got ${q}`);
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  if (q < low) {
    const t = Math.sqrt(-2 * Math.log(q));
    return (((((c[0]! * t + c[1]!) * t + c[2]!) * t + c[3]!) * t + c[4]!) * t + c[5]!) / ((((d[0]! * t + d[1]!) * t + d[2]!) * t + d[3]!) * t + 1);
  }
  if (q > 1 - low) return -normalQuantile(1 - q);
  const t = q - 0.5;
  const r = t * t;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * t) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}
