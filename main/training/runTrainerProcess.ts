import { spawn } from "node:child_process";
import { parseTrainerLine } from "./parseTrainerLine.js";
import type { RenderedCommand } from "./renderTrainerCommand.js";
import { TrainerCancelledError } from "./TrainerCancelledError.js";
import { TrainerFailedError } from "./TrainerFailedError.js";

export interface RunTrainerOptions {
  command: RenderedCommand;
  cwd: string;
  /** Added to the workbench's own environment. Defaults to none. */
  env?: Readonly<Record<string, string>>;
  /** Aborting stops the trainer (SIGTERM, then SIGKILL after `killGraceMs`). */
  signal?: AbortSignal;
  /** The trainer is stopped after this long. Defaults to no limit. */
  timeoutMs?: number | null;
  /** Every log line, stdout and stderr. Defaults to none. */
  onLine?: (line: string) => void;
  /** `PROGRESS <0..1>` lines. Defaults to none. */
  onProgress?: (fraction: number) => void;
  /** The log kept for the registry: its last this many characters. Defaults to 1,000,000. */
  maxLogChars?: number;
  /** Defaults to 5000 ms. */
  killGraceMs?: number;
}

export interface TrainerRun {
  log: string;
  /** From `METRIC <name> <value>` lines. */
  metrics: Record<string, number>;
  durationMs: number;
}

/**
 * Runs a trainer (or conversion) command as a child process in its own process group, streaming
 * its output line by line. Resolves when it exits 0; a non-zero exit is a TrainerFailedError, a
 * cancel or time-out a TrainerCancelledError, both carrying the log.
 */
export async function runTrainerProcess(options: RunTrainerOptions): Promise<TrainerRun> {
  const { command } = options;
  const maxLogChars = options.maxLogChars ?? 1_000_000;
  const started = Date.now();
  const metrics: Record<string, number> = {};
  let log = "";
  const appendLog = (line: string) => {
    log += line + "\n";
    if (log.length > maxLogChars * 2) log = log.slice(-maxLogChars);
    const signal = parseTrainerLine(line);
    if (signal && "progress" in signal) options.onProgress?.(signal.progress);
    else if (signal) metrics[signal.metric] = signal.value;
    options.onLine?.(line);
  };
  const finalLog = () => (log.length > maxLogChars ? log.slice(-maxLogChars) : log);
  if (options.signal?.aborted) throw new TrainerCancelledError(`${command.display}: cancelled before it started`, "");

  const posix = process.platform !== "win32";
  const child = command.argv
    ? spawn(command.argv[0]!, command.argv.slice(1), { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"], detached: posix })
    : spawn(command.shellCommand!, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"], shell: true, detached: posix });

  let stopReason: string | null = null;
  let killTimer: NodeJS.Timeout | undefined;
  const kill = (signal: NodeJS.Signals) => {
    try {
      if (posix && child.pid !== undefined) process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // already gone
    }
  };
  const stop = (reason: string) => {
    if (stopReason !== null) return;
    stopReason = reason;
    kill("SIGTERM");
    killTimer = setTimeout(() => kill("SIGKILL"), options.killGraceMs ?? 5000);
  };
  const onAbort = () => stop("cancelled");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const timeout = options.timeoutMs ? setTimeout(() => stop(`stopped after its time limit of ${options.timeoutMs} ms`), options.timeoutMs) : undefined;

  const pending = { stdout: "", stderr: "" };
  const read = (stream: "stdout" | "stderr") => (chunk: Buffer) => {
    pending[stream] += chunk.toString("utf8");
    const lines = pending[stream].split(/\r?\n|\r/);
    pending[stream] = lines.pop() ?? "";
    for (const line of lines) appendLog(line);
  };
  child.stdout!.on("data", read("stdout"));
  child.stderr!.on("data", read("stderr"));

  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.once("error", (error) => resolve({ code: null, signal: null, error }));
    child.once("close", (code, signal) => resolve({ code, signal }));
  });
  clearTimeout(timeout);
  clearTimeout(killTimer);
  options.signal?.removeEventListener("abort", onAbort);
  for (const rest of [pending.stdout, pending.stderr]) if (rest !== "") appendLog(rest);

  if (stopReason !== null) throw new TrainerCancelledError(`${command.display}: ${stopReason}`, finalLog());
  if (exit.error) throw new TrainerFailedError(`${command.display}: cannot start: ${exit.error.message}`, finalLog());
  if (exit.code !== 0) {
    const tail = finalLog().trimEnd().split("\n").slice(-5).join("\n");
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    throw new TrainerFailedError(`${command.display} ${how}${tail ? `; last lines:\n${tail}` : ""}`, finalLog());
  }
  return { log: finalLog(), metrics, durationMs: Date.now() - started };
}
