/** One ACEBench-Agent item (`data_agent_multi_step.json` / `data_agent_multi_turn.json`) with its possible answer. */
export interface AceBenchItem {
  index: number;
  id: string;
  /** `multi_step` (the task given once, no user after it) or `multi_turn` (a simulated user holds the task). */
  category: "multi_step" | "multi_turn";
  /** The task (multi_step) or the user simulator's instruction (multi_turn). */
  question: string;
  /** The function docs shown to the agent (`function`). */
  functions: unknown[];
  initialConfig: Record<string, unknown>;
  involvedClasses: string[];
  /** The end state: `[{Class: {attribute: value}}]` (`ground_truth`). */
  groundTruth: Record<string, Record<string, unknown>>[];
  /** The expected call sequence (`mile_stone`): one list of reply strings, or several alternatives. */
  mileStone: string[] | string[][];
}

/** An ACEBench-Agent suite: its items, the checkout they belong to and its language. */
export interface AceBenchSuite {
  items: AceBenchItem[];
  /** The ACEBench checkout (its `model_inference/` holds the API classes and prompts). */
  root: string;
  language: "en" | "zh";
}
