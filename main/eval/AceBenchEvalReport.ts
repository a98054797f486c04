/** One ACEBench-Agent item's outcome. */
export interface AceBenchEvalItem {
  index: number;
  id: string;
  /** ACEBench's end-to-end check: the saved attributes of every class equal the possible answer's. */
  correct: boolean;
  /** ACEBench's process accuracy: the share of `mile_stone` found in order among the agent's executed replies (1 when correct). */
  process: number;
  /** Why the end state failed (the differing attributes, the wrong number of classes, an error), else null. */
  why: string | null;
  /** The agent's replies that went to execution, in order (ACEBench's `process`). */
  calls: string[];
  /** Dialogue turns used (at most the turn limit). */
  turns: number;
}

/**
 * `spade eval --json` on an ACEBench-Agent suite: accuracy is ACEBench's end-to-end accuracy
 * (the paper's ACEBench-Agent number), with its 95% interval (`scoreInterval`: Wilson's for items scored 0 or 1, else the bootstrap) over items; process
 * accuracy is reported beside it, as ACEBench reports both.
 */
export interface AceBenchEvalReport {
  suite: string;
  kind: "acebench";
  n: number;
  correct: number;
  accuracy: number;
  interval: [number, number];
  processAccuracy: number;
  processInterval: [number, number];
  /** Who played the user in multi_turn items: "the evaluated model" or the configured simulator's name. */
  userSimulator: string;
  items: AceBenchEvalItem[];
}
