/** One code problem's samples. */
export interface CodeEvalItem {
  index: number;
  id: string;
  /** Samples that passed every test. */
  passed: number;
  samples: number;
  /** Why the first failing sample failed (no code block, a wrong answer, a time-out, ...), else null. */
  why: string | null;
}

/**
 * `spade eval --json` on a code suite: pass@1 as the reference counts it (the fraction of samples
 * passing every test, averaged over problems), with its 95% interval (`scoreInterval`: Wilson's for items scored 0 or 1, else the bootstrap) over problems.
 */
export interface CodeEvalReport {
  suite: string;
  kind: "code";
  n: number;
  samples: number;
  passAt1: number;
  interval: [number, number];
  items: CodeEvalItem[];
}
