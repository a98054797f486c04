import type { StdioOptions } from "node:child_process";
import { openSync, readdirSync, readFileSync } from "node:fs";

/** O_CLOEXEC in the `flags` line of /proc/self/fdinfo (octal, Linux on every architecture Node supports). */
const O_CLOEXEC = 0o2000000;

/**
 * The descriptors of this process above stderr that a child would inherit: open without
 * close-on-exec, as the engine's own parent (a shell, a CI runner, Electron's launcher) may have
 * left them. Node opens its own with close-on-exec. Linux only: empty elsewhere.
 */
export function inheritableDescriptors(): number[] {
  if (process.platform !== "linux") return [];
  const found: number[] = [];
  for (const name of readdirSync("/proc/self/fdinfo")) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    try {
      const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"))?.[1];
      if (flags !== undefined && (Number.parseInt(flags, 8) & O_CLOEXEC) === 0) found.push(fd);
    } catch {
      // Closed meanwhile (the listing's own descriptor).
    }
  }
  return found;
}

let devNull: number | null = null;

/**
 * The stdio of a sandbox child: no stdin or stdout, stderr and `pipes` pipes from descriptor 3
 * on, and /dev/null put over every descriptor the engine would otherwise pass on, so that neither
 * the OS confinement nor Node starts with anything the child was not given.
 */
export function sandboxChildStdio(pipes: number): StdioOptions {
  const stdio: Array<"ignore" | "pipe" | number> = ["ignore", "ignore", "pipe", ...Array.from({ length: pipes }, () => "pipe" as const)];
  for (const fd of inheritableDescriptors()) {
    if (fd < stdio.length) continue;
    devNull ??= openSync("/dev/null", "r");
    while (stdio.length < fd) stdio.push("ignore");
    stdio[fd] = devNull;
  }
  return stdio;
}
