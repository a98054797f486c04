import { createHash } from "node:crypto";

/**
 * A deterministic uint32 seed from any parts (run seed, iteration, slot, attempt, ...): the first
 * four bytes of SHA-256 over the parts. The same parts give the same seed on every machine, and
 * `(1, 23)` differs from `(12, 3)` because each part is encoded with its type and length.
 */
export function deriveSeed(...parts: (string | number)[]): number {
  const hash = createHash("sha256");
  for (const part of parts) {
    const encoded = typeof part === "number" ? `n${part}` : `s${part}`;
    hash.update(`${encoded.length}:${encoded};`);
  }
  return hash.digest().readUInt32BE(0);
}

/** A float stream in [0, 1) from a uint32 seed (mulberry32: small, fast, good enough for draws). */
export function createRng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `createRng(deriveSeed(...parts))`: the random stream of one named draw. */
export function seededRandom(...parts: (string | number)[]): () => number {
  return createRng(deriveSeed(...parts));
}
