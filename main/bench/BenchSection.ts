/** One section of `spade bench --json`: a name and a measurement that returns flat values (numbers, and a few labels such as the sandbox confinement). */
export interface BenchSection {
  name: string;
  /** Measures and returns the section's object, e.g. `{ stepsPerSec: 41000, ... }`. */
  run(log: (line: string) => void): Promise<Record<string, number | string | null>>;
}
