import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";

/** The built CLI. Tests that start it need `npm run build:engine` first. */
export const spadeCli = resolve(import.meta.dirname, "../../out/engine/main/cli/spade.js");

export interface CliProcess {
  child: ChildProcess;
  /** Resolves when the process has closed, with its exit code and everything it printed. */
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/**
 * Starts `spade <args>` as a child process (for kill -9 tests). `detached` puts it in its own
 * process group, so `process.kill(-pid, "SIGKILL")` takes its own children (a trainer) with it.
 */
export function startCli(args: string[], options: { detached?: boolean } = {}): CliProcess {
  const child = spawn(process.execPath, [spadeCli, ...args], { stdio: ["ignore", "pipe", "pipe"], detached: options.detached ?? false });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolveDone) => child.on("close", (code) => resolveDone({ code, stdout, stderr })));
  return { child, done };
}
