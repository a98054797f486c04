/** Counts of one arm: wins out of plays. */
export interface Proportion {
  wins: number;
  plays: number;
}

/**
 * One-sided two-proportion z-test (pooled variance) of H1: p(after) > p(before). Returns z and
 * its p-value from the standard normal's upper tail.
 */
export function oneSidedTwoProportionZ(before: Proportion, after: Proportion): { z: number; p: number } {
  const p1 = before.wins / before.plays;
  const p2 = after.wins / after.plays;
  const pooled = (before.wins + after.wins) / (before.plays + after.plays);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / before.plays + 1 / after.plays));
  const z = se === 0 ? 0 : (p2 - p1) / se;
  return { z, p: 1 - normalCdf(z) };
}

/** Standard normal CDF (Abramowitz-Stegun 7.1.26 erf, |error| < 1.5e-7). */
export function normalCdf(x: number): number {
  const t = 1 / (1 + 0.3275911 * (Math.abs(x) / Math.SQRT2));
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-(x * x) / 2);
  return x >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}
