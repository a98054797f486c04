/** A group's returns normalised GRPO-style. */
export interface GroupAdvantages {
  mean: number;
  /** Sample standard deviation (n - 1), as TRL and verl compute it. */
  std: number;
  /** (return - mean) / std, in the order of the returns. */
  advantages: number[];
}

/**
 * GRPO advantages of one group: (return - mean) / std. Null when the group carries no learning
 * signal: fewer than two plays, or every play returned the same (zero variance).
 */
export function groupAdvantages(returns: readonly number[]): GroupAdvantages | null {
  if (returns.length < 2) return null;
  const mean = returns.reduce((sum, value) => sum + value, 0) / returns.length;
  const variance = returns.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (returns.length - 1);
  const std = Math.sqrt(variance);
  // Returns that differ only by float noise are a zero-variance group, not a huge advantage.
  if (!(std > 1e-9)) return null;
  return { mean, std, advantages: returns.map((value) => (value - mean) / std) };
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
