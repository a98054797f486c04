import { expect } from "vitest";
import type { EnvSession } from "../../main/sandbox/EnvSession.js";
import type { SandboxPool, SandboxPoolOptions } from "../../main/sandbox/SandboxPool.js";
import type { SandboxProcess } from "../../main/sandbox/SandboxProcess.js";

/**
 * The two ways an environment gets a process, for suites that run against both: never-used
 * processes only (recycling off), and recycled ones (no warm set, so that an environment wanting a
 * never-used process gets the previous environment's process put back to its pristine state).
 */
export const SANDBOX_PROCESS_MODES: Array<{ mode: string; options: SandboxPoolOptions; recycled: boolean }> = [
  { mode: "never-used processes", options: { recycleProcesses: false }, recycled: false },
  { mode: "recycled processes", options: { recycleProcesses: true, prewarm: 0 }, recycled: true },
];

/** True when the session runs in a process that served another game and was recycled. */
export function inRecycledProcess(session: EnvSession): boolean {
  return (session as unknown as { process: SandboxProcess }).process.recycles > 0;
}

/** Checks that a suite's environments ran in the processes its mode promises (`opens`: the suite's opens, and those in recycled processes). */
export function expectOpensInMode(pool: SandboxPool, opens: { all: number; recycled: number }, recycled: boolean): void {
  if (recycled) {
    expect(pool.stats().processesRecycled).toBeGreaterThan(0);
    expect(opens.recycled).toBeGreaterThanOrEqual(opens.all / 2);
  } else {
    expect(pool.stats().processesRecycled).toBe(0);
    expect(opens.recycled).toBe(0);
  }
}
