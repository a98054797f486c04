import { createRng } from "../util/seededRandom.js";

export interface BootstrapOptions {
  /** Resamples drawn. Defaults to 2000. */
  resamples?: number;
  /** Coverage of the interval. Defaults to 0.95. */
  level?: number;
  /** Seed of the resampling (the interval is reproducible). Defaults to 0. */
  seed?: number;
}

/**
 * The percentile bootstrap interval of the mean of per-item scores: items (questions, problems,
 * environments) are resampled with replacement, the item's own samples staying together, so the
 * interval says how much the score would move on another draw of items of the same kind.
 * [mean, mean] for one item; [0, 0] for none.
 */
export function bootstrapInterval(scores: readonly number[], options: BootstrapOptions = {}): [number, number] {
  const n = scores.length;
  if (n === 0) return [0, 0];
  const mean = scores.reduce((a, b) => a + b, 0) / n;
  if (n === 1) return [mean, mean];
  const resamples = options.resamples ?? 2000;
  const alpha = (1 - (options.level ?? 0.95)) / 2;
  const random = createRng(options.seed ?? 0);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += scores[Math.floor(random() * n)]!;
    means[r] = sum / n;
  }
  means.sort();
  const at = (q: number) => means[Math.min(resamples - 1, Math.max(0, Math.round(q * (resamples - 1))))]!;
  return [at(alpha), at(1 - alpha)];
}
