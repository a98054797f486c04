/** A measured value: a number (or a label, or null), or a list or object of them (e.g. one entry per concurrency level). */
export type BenchValue = number | string | null | readonly BenchValue[] | { readonly [key: string]: BenchValue };

/** One section of `spade bench --json`: a name and a measurement that returns its numbers. */
export interface BenchSection {
  name: string;
  /**
   * Gets what the section needs before it is measured (e.g. builds the renderer); throws
   * BenchSkipped when that cannot be had. Defaults to nothing to prepare.
   */
  prepare?(log: (line: string) => void): Promise<void>;
  /** Measures and returns the section's object, e.g. `{ stepsPerSec: 41000, ... }`. */
  run(log: (line: string) => void): Promise<Record<string, BenchValue>>;
}

/** What `spade bench --json` prints for a section that did not run. */
export interface SkippedSection {
  skipped: true;
  reason: string;
}

export type BenchResult = Record<string, Record<string, BenchValue> | SkippedSection>;

