import { seededRandom } from "../util/seededRandom.js";

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/**
 * The fixed-pool baseline's draw for one rollout, as the reference's static pool does it: the pool
 * is shuffled once and dealt `perRollout` at a time without replacement; when it runs out it is
 * shuffled again (leaving out what this rollout already got) and dealing goes on. Returns indices
 * into the pool. Pure in (seed, pool size, rollout): the state is replayed from the first rollout.
 */
export function drawFixedPool(seed: number, poolSize: number, perRollout: number, rollout: number): number[] {
  if (poolSize === 0) return [];
  const random = seededRandom(seed, "fixed pool");
  let remaining = shuffle(Array.from({ length: poolSize }, (_, i) => i), random);
  let selected: number[] = [];
  for (let r = 0; r <= rollout; r++) {
    selected = remaining.slice(0, perRollout);
    remaining = remaining.slice(perRollout);
    while (selected.length < perRollout) {
      const taken = new Set(selected);
      const refill = shuffle(Array.from({ length: poolSize }, (_, i) => i), random).filter((i) => !taken.has(i));
      // A pool smaller than a rollout's draw repeats games within the rollout.
      const needed = perRollout - selected.length;
      const batch = refill.length > 0 ? refill : shuffle(Array.from({ length: poolSize }, (_, i) => i), random);
      selected = [...selected, ...batch.slice(0, needed)];
      remaining = batch.slice(needed);
    }
  }
  return selected;
}
