/** One BFCL-style multi-turn item: the user's turns, the API state it starts from, the ground truth per turn. */
export interface ToolUseItem {
  index: number;
  id: string;
  /** Each turn's user messages (a turn may have none: a turn that only adds withheld functions). */
  turns: { role: "user" | "system"; content: string }[][];
  /** Each involved class's initial state (`initial_config`). */
  initialConfig: Record<string, unknown>;
  involvedClasses: string[];
  /** Functions withheld until a turn (`missed_function`: turn index -> names). */
  missedFunction: Record<string, string[]>;
  /** The ground truth's calls per turn, as BFCL's call strings `name(key=value, ...)`. */
  groundTruth: string[][];
  /** BFCL's long-context category (its classes load a larger scenario). */
  longContext: boolean;
}

/** A tool-use suite: its items and where the API classes and their function docs are. */
export interface ToolUseSuite {
  items: ToolUseItem[];
  /** BFCL's `func_source_code` layout next to the suite; the worker falls back to the installed bfcl_eval. */
  classesDir: string;
  /** BFCL's `multi_turn_func_doc` layout next to the suite (one JSON function doc a line). */
  docsDir: string;
}
