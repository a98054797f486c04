/** One tool-use item's outcome. */
export interface ToolUseEvalItem {
  index: number;
  id: string;
  /** Passed both checks on every turn with ground truth. */
  correct: boolean;
  /** The first failure: `state` (the API instances differ from the ground truth's), `response` (a ground truth result missing from the model's), `empty` (no call in a turn that needed some), `steps` (past the step limit), `error` (the worker failed); null when correct. */
  failure: "state" | "response" | "empty" | "steps" | "error" | null;
  /** The turn the failure is in, else null. */
  turn: number | null;
  /** What failed, in words (the differing attributes, the missing results), else null. */
  why: string | null;
  /** The model's calls, per turn, per step, as `name(key=value, ...)`. */
  calls: string[][][];
}

/**
 * `spade eval --json` on a BFCL-style multi-turn suite: accuracy is the fraction of items passing
 * BFCL's state and response checks on every turn, with its 95% interval (`scoreInterval`: Wilson's for items scored 0 or 1, else the bootstrap) over items.
 */
export interface ToolUseEvalReport {
  suite: string;
  kind: "tool-use";
  n: number;
  correct: number;
  accuracy: number;
  interval: [number, number];
  items: ToolUseEvalItem[];
}
