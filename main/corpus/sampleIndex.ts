/** A uniform index in [0, count) from one draw of `rng`, clamped against an rng that returns 1. */
export function sampleIndex(rng: () => number, count: number): number {
  const draw = rng();
  if (!(draw >= 0 && draw <= 1)) throw new RangeError(`corpus sample: the rng returned ${draw}; expected a number in [0, 1)`);
  return Math.min(count - 1, Math.floor(draw * count));
}
