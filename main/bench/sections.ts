import type { BenchSection } from "./BenchSection.js";
import { exportBench } from "../training/exportBench.js";
import { rawTokensBench } from "./rawTokensBench.js";
import { storeBench } from "./storeBench.js";
import { uiBench } from "./uiBench.js";

/** The benchmark sections, in output order. */
export const benchSections: BenchSection[] = [uiBench, rawTokensBench, storeBench, exportBench];
