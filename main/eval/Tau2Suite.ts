/** One tau2 domain run, as the reference's `tau2_eval.tasks` entries name them. */
export interface Tau2Spec {
  domain: string;
  /** Defaults to "base". */
  split: string;
  /** The first n tasks only (the reference's `truncate`). Defaults to all. */
  limit: number | null;
}

/**
 * A tau2 suite file (`{"tau2": {...}}`): where tau2-bench is and what to run; the defaults are the
 * reference's `_tool_use_tau2.yaml`.
 */
export interface Tau2Suite {
  /** tau2-bench's `src` folder when it is not installed in the interpreter, else null. */
  path: string | null;
  /** tau2-bench's `data` folder (`TAU2_DATA_DIR`), else null (tau2's own default). */
  dataDir: string | null;
  /** Defaults to retail, telecom and airline, base split. */
  tasks: Tau2Spec[];
  /** Defaults to 4. */
  numTrials: number;
  /** Defaults to 200. */
  maxSteps: number;
  /** Simulations in flight at once. Defaults to 8 (the reference: 48, against a server). */
  maxConcurrency: number;
  /** The agent's sampling. Defaults to temperature 0, top-p 0.8, top-k 20, 16384 tokens. */
  agent: { temperature: number; topP: number; topK: number; maxTokens: number };
  /** The user simulator's sampling. Defaults to temperature 0, 2048 tokens. */
  user: { temperature: number; maxTokens: number };
}
