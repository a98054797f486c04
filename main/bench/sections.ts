import type { BenchSection } from "./BenchSection.js";

/** The benchmark sections, in output order. */
export const benchSections: BenchSection[] = [];
