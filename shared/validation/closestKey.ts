/**
 * The known key a typo most likely meant: the one at the smallest edit distance (Levenshtein,
 * letter case ignored), when that distance is small for the key's length (at most 1 for up to 4
 * letters, 2 up to 8, else 3); null when none is that close.
 */
export function closestKey(key: string, known: readonly string[]): string | null {
  const limit = key.length <= 4 ? 1 : key.length <= 8 ? 2 : 3;
  let best: { key: string; distance: number } | null = null;
  for (const candidate of known) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && (best === null || distance < best.distance)) best = { key: candidate, distance };
  }
  return best?.key ?? null;
}

/** Levenshtein distance: insertions, deletions and substitutions, one each. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}
