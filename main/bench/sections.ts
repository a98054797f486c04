import type { BenchSection } from "./BenchSection.js";
import { uiBench } from "./uiBench.js";

/** The benchmark sections, in output order. */
export const benchSections: BenchSection[] = [uiBench];
