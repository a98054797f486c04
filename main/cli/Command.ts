/** One `spade` sub-command. `run` returns the process exit code. */
export interface Command {
  /** The words that select it, e.g. `env validate`. */
  name: string;
  usage: string;
  summary: string;
  run(argv: string[]): Promise<number>;
}
