/** A memory entry as the designer prompt sees it. */
export interface MemoryCandidate {
  environmentId: number;
  skill: string | null;
  className: string | null;
  codeExcerpt: string;
  winRate: number;
  regret: number;
}

export interface MemorySelection {
  references: MemoryCandidate[];
  /** One environment to name as what not to write: too easy (win rate > 0.9) or too hard (< 0.1). */
  negative: { entry: MemoryCandidate; reason: "too easy" | "too hard" } | null;
}

/**
 * SPADE's retrieval: entries of the same skill with a win rate in [0.15, 0.85], sorted by regret,
 * `count` drawn from the top max(3 * count, 10); plus one too-easy or too-hard entry as a negative
 * example (same skill preferred). `random` is the run's seeded RNG.
 */
export function selectMemoryReferences(entries: readonly MemoryCandidate[], skill: string, count: number, random: () => number): MemorySelection {
  const learnable = entries
    .filter((entry) => entry.skill === skill && entry.winRate >= 0.15 && entry.winRate <= 0.85)
    .sort((a, b) => b.regret - a.regret || a.environmentId - b.environmentId);
  const pool = learnable.slice(0, Math.max(3 * count, 10));
  const references: MemoryCandidate[] = [];
  while (references.length < count && pool.length > 0) {
    references.push(...pool.splice(Math.floor(random() * pool.length), 1));
  }
  const extremes = entries.filter((entry) => entry.winRate > 0.9 || entry.winRate < 0.1);
  const sameSkill = extremes.filter((entry) => entry.skill === skill);
  const candidates = sameSkill.length > 0 ? sameSkill : extremes;
  const pick = candidates.length > 0 ? candidates[Math.floor(random() * candidates.length)] : undefined;
  return {
    references,
    negative: pick ? { entry: pick, reason: pick.winRate > 0.9 ? "too easy" : "too hard" } : null,
  };
}
