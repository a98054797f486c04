/** A measured value: a number, or a list or object of them (e.g. one entry per concurrency level). */
export type BenchValue = number | readonly BenchValue[] | { readonly [key: string]: BenchValue };

/** One section of `spade bench --json`: a name and a measurement that returns its numbers. */
export interface BenchSection {
  name: string;
  /** Measures and returns the section's object, e.g. `{ stepsPerSec: 41000, ... }`. */
  run(log: (line: string) => void): Promise<Record<string, BenchValue>>;
}
