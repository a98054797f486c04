/** One tau2 task's trials. */
export interface Tau2EvalItem {
  /** `<domain>/<task id>`. */
  id: string;
  /** Trials with reward 1 (within 1e-6) that ended by the agent or the user. */
  passed: number;
  /** Trials run (as configured; a missing one is an error). */
  samples: number;
  /** Trials that ended in an error (an infrastructure, agent, user or unexpected error, too many errors, a timeout) or never came back. */
  errors: number;
}

/** One domain and split, as the reference's `Tau2SpecResult` counts it. */
export interface Tau2DomainResult {
  label: string;
  domain: string;
  split: string;
  tasks: number;
  /** Tasks x trials: the strict denominator. */
  simulations: number;
  passed: number;
  errors: number;
  /** passed / simulations. */
  passAt1: number;
  /** passed / (simulations - errors): the reference's forensic figure. */
  passAt1Clean: number;
}

/**
 * `spade eval --json` on a tau2 suite: pass@1 = passed simulations / all simulations over every
 * domain (the reference's `overall_pass_at_1`), with a 95% interval (`scoreInterval`: Wilson's for items scored 0 or 1, else the bootstrap) over tasks (a task's
 * trials kept together), and each domain's figures.
 */
export interface Tau2EvalReport {
  suite: string;
  kind: "tau2";
  /** Tasks. */
  n: number;
  trials: number;
  simulations: number;
  passed: number;
  errors: number;
  accuracy: number;
  interval: [number, number];
  domains: Tau2DomainResult[];
  /** Who played the user (and judged tau2's natural-language assertions): "the evaluated model" or the configured backend. */
  userSimulator: string;
  items: Tau2EvalItem[];
}
