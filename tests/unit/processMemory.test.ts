import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCpuTicks, readRssBytes, readTreeUsage } from "../../main/sandbox/processMemory.js";

const linux = process.platform === "linux";
/** A pid no process has (above Linux's default pid_max). */
const GONE = 2 ** 22 + 12345;

describe.runIf(linux)("processMemory", () => {
  // A process that sleeps: its resident memory and CPU stay put between readings, whatever the machine does.
  let sleeper: ChildProcess;
  beforeAll(async () => {
    sleeper = spawn("sleep", ["60"], { stdio: "ignore" });
    await new Promise((resolve) => sleeper.once("spawn", resolve));
    // Until it has become `sleep` (past exec) and started sleeping, its memory still moves.
    const comm = () => {
      try {
        return readFileSync(`/proc/${sleeper.pid}/comm`, "utf8").trim();
      } catch {
        return "";
      }
    };
    for (const started = Date.now(); comm() !== "sleep" && Date.now() - started < 10_000; ) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 200));
  });
  afterAll(() => {
    sleeper.kill("SIGKILL");
  });

  it("reads a process's CPU ticks from /proc/<pid>/stat (the fields after its command name)", () => {
    // `sleep` has hardly run: a few ticks at most, never a neighbouring field such as its start time.
    const ticks = readCpuTicks(sleeper.pid!);
    expect(ticks).not.toBeNull();
    expect(ticks).toBeGreaterThanOrEqual(0);
    expect(ticks).toBeLessThan(50);
    expect(readCpuTicks(GONE)).toBeNull();
  });

  it("sums a tree and leaves out processes that are gone", () => {
    const pid = sleeper.pid!;
    const one = readTreeUsage([pid]);
    expect(one).toEqual({ rssBytes: readRssBytes(pid), cpuTicks: readCpuTicks(pid) });
    expect(readTreeUsage([pid, GONE])).toEqual(one);
    const two = readTreeUsage([pid, pid]);
    expect(two.rssBytes).toBe(2 * one.rssBytes!);
    expect(two.cpuTicks).toBe(2 * one.cpuTicks!);
    expect(readTreeUsage([GONE])).toEqual({ rssBytes: null, cpuTicks: null });
  });
});
