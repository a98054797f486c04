import type { BenchResult, BenchSection } from "./BenchSection.js";
import { BenchSkipped } from "./BenchSkipped.js";

/**
 * Runs the sections in order. A section that cannot run (BenchSkipped) or fails is reported as
 * skipped with its reason and the others still run, so no measured section's numbers are lost;
 * `failed` names the sections that failed for another reason than a known missing part.
 */
export async function runBenchSections(sections: BenchSection[], log: (section: string, line: string) => void): Promise<{ result: BenchResult; failed: string[] }> {
  const result: BenchResult = {};
  const failed: string[] = [];
  for (const section of sections) {
    const sectionLog = (line: string) => log(section.name, line);
    try {
      await section.prepare?.(sectionLog);
      result[section.name] = await section.run(sectionLog);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (!(error instanceof BenchSkipped)) failed.push(section.name);
      result[section.name] = { skipped: true, reason };
      sectionLog(`skipped: ${reason}`);
    }
  }
  return { result, failed };
}
