/** A group's returns normalised GRPO-style. */
export interface GroupAdvantages {
  mean: number;
  /** Population standard deviation (divide by n), as the reference's GRPO normalisation computes it. */
  std: number;
  /** (return - mean) / std, in the order of the returns; all 0 for a zero-variance group. */
  advantages: number[];
  /** Every return is the same (or there is one): the group is kept, its advantages are 0. */
  zeroVariance: boolean;
}

/**
 * GRPO advantages of one group, as the reference computes them: (return - mean) / population std.
 * A zero-variance group (all returns equal, or a single play) is kept with advantage 0, as in the
 * reference; export formats that need a signal drop it themselves (see `zeroVariance`). Null only
 * for an empty group.
 */
export function groupAdvantages(returns: readonly number[]): GroupAdvantages | null {
  if (returns.length === 0) return null;
  const mean = returns.reduce((sum, value) => sum + value, 0) / returns.length;
  const variance = returns.reduce((sum, value) => sum + (value - mean) ** 2, 0) / returns.length;
  const std = Math.sqrt(variance);
  // Returns that differ only by float noise are a zero-variance group, not a huge advantage.
  if (!(std > 1e-9)) return { mean, std: 0, advantages: returns.map(() => 0), zeroVariance: true };
  return { mean, std, advantages: returns.map((value) => (value - mean) / std), zeroVariance: false };
}

/** Designer advantages: each reward minus the mean reward of its skill (no std division, as in the reference). */
export function skillCentredAdvantages(items: readonly { skill: string | null; reward: number }[]): number[] {
  const totals = new Map<string | null, { sum: number; count: number }>();
  for (const { skill, reward } of items) {
    const total = totals.get(skill) ?? { sum: 0, count: 0 };
    total.sum += reward;
    total.count += 1;
    totals.set(skill, total);
  }
  return items.map(({ skill, reward }) => {
    const total = totals.get(skill)!;
    return reward - total.sum / total.count;
  });
}
