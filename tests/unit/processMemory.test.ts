import { describe, expect, it } from "vitest";
import { pageBytes, readCpuTicks, readRssBytes, readTreeUsage } from "../../main/sandbox/processMemory.js";

const linux = process.platform === "linux";

describe.runIf(linux)("processMemory", () => {
  it("reads the kernel's page size from the auxiliary vector: a power of two of at least 4 KiB", () => {
    const bytes = pageBytes();
    expect(bytes).toBeGreaterThanOrEqual(4096);
    expect(Math.log2(bytes) % 1).toBe(0);
  });

  it("takes a tree's resident memory and CPU from one read of /proc/<pid>/stat: the same pages as status's VmRSS, the same ticks", () => {
    // 64 MiB made resident between the readings would show as a difference if the fields were not the same.
    const held = Buffer.alloc(64 * 1024 * 1024, 1);
    const status = readRssBytes(process.pid)!;
    const ticks = readCpuTicks(process.pid)!;
    const usage = readTreeUsage([process.pid]);
    expect(held[held.length - 1]).toBe(1);
    expect(status).toBeGreaterThan(64 * 1024 * 1024);
    // Read a moment apart: within 4 MiB of each other (the test process allocates little in between).
    expect(Math.abs(usage.rssBytes! - status)).toBeLessThan(4 * 1024 * 1024);
    expect(usage.cpuTicks).toBeGreaterThanOrEqual(ticks);
    expect(usage.cpuTicks! - ticks).toBeLessThan(100);
  });

  it("sums a tree and leaves out processes that are gone", () => {
    const one = readTreeUsage([process.pid]);
    const withGone = readTreeUsage([process.pid, 2 ** 22 + 12345]);
    expect(withGone.rssBytes).toBeGreaterThan(0);
    expect(Math.abs(withGone.rssBytes! - one.rssBytes!)).toBeLessThan(4 * 1024 * 1024);
    expect(readTreeUsage([2 ** 22 + 12345])).toEqual({ rssBytes: null, cpuTicks: null });
  });
});
