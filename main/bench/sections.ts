import type { BenchSection } from "./BenchSection.js";
import { rawTokensBench } from "./rawTokensBench.js";
import { uiBench } from "./uiBench.js";

/** The benchmark sections, in output order. */
export const benchSections: BenchSection[] = [uiBench, rawTokensBench];
