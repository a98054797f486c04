import { readFileSync } from "node:fs";

/**
 * The resident set size of a process in bytes, read from /proc/<pid>/status on Linux; null where
 * that is not available (other systems, or the process is gone). The sandbox's WebAssembly memory
 * lives outside the JavaScript heap, so only the RSS shows it.
 */
export function readRssBytes(pid: number): number | null {
  if (process.platform !== "linux") return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}
