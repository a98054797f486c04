/** One held-out environment's plays. */
export interface EnvironmentEvalItem {
  index: number;
  /** The environment's file name within the suite folder. */
  file: string;
  className: string | null;
  plays: number;
  meanReturn: number;
  winRate: number;
  /** Plays that ended in an error (counted with their return, usually 0). */
  errors: number;
}

/** `spade eval --json` on a folder of environments: plays without hints, mean return and win rate. */
export interface EnvironmentEvalReport {
  suite: string;
  kind: "environments";
  /** Environments played. */
  n: number;
  plays: number;
  meanReturn: number;
  /** Fraction of plays with a return > 0. */
  winRate: number;
  /** The 95% interval (`scoreInterval`: Wilson's for items scored 0 or 1, else the bootstrap) of `meanReturn` over environments (each environment's plays kept together). */
  interval: [number, number];
  items: EnvironmentEvalItem[];
}
