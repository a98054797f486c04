export interface PromotionDecision {
  promoted: boolean;
  /** candidate - parent. */
  delta: number;
  reason: string;
}

/**
 * The promotion gate: an adapter is used for the next iterations only if its held-out score is not
 * worse than its parent's (the base model's for a first adapter) by more than `margin`.
 */
export function promotionGate(candidate: number, parent: number, margin: number): PromotionDecision {
  const delta = candidate - parent;
  const promoted = delta >= -margin - 1e-12;
  const fmt = (value: number) => value.toFixed(4);
  return {
    promoted,
    delta,
    reason: promoted
      ? `score ${fmt(candidate)} vs parent ${fmt(parent)}: within the margin of ${margin}`
      : `score ${fmt(candidate)} is below the parent's ${fmt(parent)} by ${fmt(-delta)}, more than the margin of ${margin}`,
  };
}
