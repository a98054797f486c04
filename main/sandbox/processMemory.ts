import { readFileSync } from "node:fs";

/** The processes under `pid` (itself included), from /proc/<pid>/task/<pid>/children; [pid] where that is not readable. */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let index = 0; index < tree.length && index < 64; index++) {
    const parent = tree[index] as number;
    try {
      for (const child of readFileSync(`/proc/${parent}/task/${parent}/children`, "utf8").trim().split(/\s+/)) {
        if (child) tree.push(Number(child));
      }
    } catch {
      // Gone, or not Linux.
    }
  }
  return tree;
}

/**
 * The resident set size of a process in bytes, read from /proc/<pid>/status on Linux; null where
 * that is not available (other systems, or the process is gone). The sandbox's WebAssembly memory
 * lives outside the JavaScript heap, so only the RSS shows it.
 */
export function readRssBytes(pid: number): number | null {
  return readProcKb(`/proc/${pid}/status`, "VmRSS");
}

/**
 * The proportional set size of a process in bytes (its resident memory, each page shared with
 * other processes counted as its share: Node's own code pages are shared by every sandbox), from
 * /proc/<pid>/smaps_rollup on Linux; null where that is not available or not readable.
 */
export function readPssBytes(pid: number): number | null {
  return readProcKb(`/proc/${pid}/smaps_rollup`, "Pss");
}

/** A "<field>: <n> kB" line of a /proc file, in bytes; null off Linux, or where the file or the line is missing. */
function readProcKb(path: string, field: string): number | null {
  if (process.platform !== "linux") return null;
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m").exec(readFileSync(path, "utf8"));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** The proportional set size of a whole process tree in bytes; null where none is readable. */
export function readTreePss(pids: number[]): number | null {
  let pss: number | null = null;
  for (const pid of pids) {
    const bytes = readPssBytes(pid);
    if (bytes !== null) pss = (pss ?? 0) + bytes;
  }
  return pss;
}

/** Milliseconds per clock tick of /proc's CPU times (Linux's USER_HZ is 100 on every architecture Node runs on). */
export const CPU_TICK_MS = 10;

/**
 * The fields of /proc/<pid>/stat after the command name (which may contain spaces, in
 * parentheses): index 0 is field 3 (state), so field n of proc(5) is index n - 3 (utime 11, stime
 * 12, starttime 19). Null off Linux or when the process is gone.
 */
export function readStatFields(pid: number): string[] | null {
  if (process.platform !== "linux") return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** User + system CPU time of a process in clock ticks (usually 1/100 s), from /proc/<pid>/stat; null where not available. */
export function readCpuTicks(pid: number): number | null {
  const fields = readStatFields(pid);
  return fields === null ? null : Number(fields[11]) + Number(fields[12]);
}

/** Resident memory and CPU ticks of a whole process tree; nulls where not available. */
export function readTreeUsage(pids: number[]): { rssBytes: number | null; cpuTicks: number | null } {
  let rss: number | null = null;
  let cpu: number | null = null;
  for (const pid of pids) {
    const r = readRssBytes(pid);
    const c = readCpuTicks(pid);
    if (r !== null) rss = (rss ?? 0) + r;
    if (c !== null) cpu = (cpu ?? 0) + c;
  }
  return { rssBytes: rss, cpuTicks: cpu };
}
