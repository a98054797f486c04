import { readFileSync } from "node:fs";

/** What the lock needs to know about the process that holds a run. */
export type HolderState = "alive" | "gone";

/**
 * The start time of a process, as an opaque string, or null where the platform does not say
 * (Linux: field 22 of `/proc/<pid>/stat`, clock ticks since boot). Together with the pid it names
 * one process: a pid reused by a later process has another start time.
 */
export function processStartTime(pid: number): string | null {
  const fields = procStatFields(pid);
  return fields?.[19] ?? null;
}

/**
 * Whether `pid` still is the process that took the lock. Gone: no such process, a zombie or
 * dead process (killed and not yet reaped by its parent), or a later process that reused the pid
 * (its start time differs from `startTime`).
 */
export function holderState(pid: number, startTime: string | null): HolderState {
  const fields = procStatFields(pid);
  if (fields !== undefined) {
    if (fields === null) return "gone";
    const state = fields[0];
    if (state === "Z" || state === "X" || state === "x") return "gone";
    if (startTime !== null && fields[19] !== startTime) return "gone";
    return "alive";
  }
  try {
    process.kill(pid, 0);
    return "alive";
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM" ? "alive" : "gone";
  }
}

/**
 * The fields of `/proc/<pid>/stat` after the command name (state first), null when the process
 * does not exist, undefined where there is no /proc (not Linux).
 */
function procStatFields(pid: number): string[] | null | undefined {
  if (process.platform !== "linux") return undefined;
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ESRCH" ? null : undefined;
  }
  // The command name is in parentheses and may itself contain spaces and parentheses.
  const end = text.lastIndexOf(")");
  return text.slice(end + 2).trim().split(" ");
}
