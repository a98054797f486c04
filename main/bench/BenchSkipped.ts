/** A section that cannot run here (no model, no browser, ...): reported as skipped with the reason. */
export class BenchSkipped extends Error {
  override readonly name = "BenchSkipped";
}
