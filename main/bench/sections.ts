import type { BenchSection } from "./BenchSection.js";
import { exportBench } from "../training/exportBench.js";
import { concurrencyBench } from "./concurrencyBench.js";
import { loopBench } from "./loopBench.js";
import { prepareUiBench } from "./prepareUiBench.js";
import { rawTokensBench } from "./rawTokensBench.js";
import { regenerationBench } from "./regenerationBench.js";
import { rolloutBench } from "./rolloutBench.js";
import { sandboxBench } from "./sandboxBench.js";
import { storeBench } from "./storeBench.js";
import { trainingBench } from "./trainingBench.js";
import { uiBench } from "./uiBench.js";

/** The benchmark sections, in output order. */
export const benchSections: BenchSection[] = [sandboxBench, rolloutBench, storeBench, loopBench, concurrencyBench, regenerationBench, { ...uiBench, prepare: prepareUiBench }, rawTokensBench, exportBench, trainingBench];
