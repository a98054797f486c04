import { readFileSync } from "node:fs";
import { UsageError } from "../UsageError.js";

/** The one `<file.py>` argument of an `env` command, read as text; a UsageError (exit 2) when it is missing or unreadable. */
export function readEnvironmentFile(command: string, positionals: string[]): { file: string; code: string } {
  if (positionals.length !== 1) {
    throw new UsageError(`spade ${command}: expected exactly one environment file (<file.py>), got ${positionals.length === 0 ? "none" : positionals.map((p) => JSON.stringify(p)).join(", ")}`);
  }
  const file = positionals[0] as string;
  try {
    return { file, code: readFileSync(file, "utf8") };
  } catch (error) {
    throw new UsageError(`spade ${command}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
