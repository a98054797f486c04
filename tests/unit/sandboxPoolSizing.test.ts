// The pool's capacity from memory (issues 21 and 25): every process may grow to its limit, so the
// capacity is what the available memory plus the pool's own holds, divided by the limit.
import { describe, expect, it } from "vitest";
import { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { sandboxWorkingSet } from "../../main/sandbox/sandboxWorkingSet.js";

const GiB = 1024 ** 3;

describe("SandboxPool.memoryCapacity", () => {
  it("divides the available memory and what the pool holds by the per-process limit, not a fresh process's size", () => {
    expect(SandboxPool.memoryCapacity(40, { limitMb: 1024, availableBytes: 10 * GiB, heldBytes: 2 * GiB })).toBe(12);
    expect(SandboxPool.memoryCapacity(40, { limitMb: 512, availableBytes: 10 * GiB, heldBytes: 2 * GiB })).toBe(24);
    expect(SandboxPool.memoryCapacity(40, { limitMb: 2048, availableBytes: 10 * GiB, heldBytes: 2 * GiB })).toBe(6);
  });

  it("follows free memory down to a floor of two, and never goes above what is wanted", () => {
    expect(SandboxPool.memoryCapacity(40, { limitMb: 1024, availableBytes: 5 * GiB, heldBytes: 0 })).toBe(5);
    expect(SandboxPool.memoryCapacity(40, { limitMb: 1024, availableBytes: 0.5 * GiB, heldBytes: 0 })).toBe(2);
    expect(SandboxPool.memoryCapacity(7, { limitMb: 1024, availableBytes: 64 * GiB, heldBytes: 0 })).toBe(7);
  });

  it("counts a buffer per play for processes whose plays share them (playsPerProcess), none when they do not", () => {
    // 12 GiB over 1024 MiB + 4 x 128 MiB = 1536 MiB per process: 8.
    expect(SandboxPool.memoryCapacity(40, { limitMb: 1024, availableBytes: 10 * GiB, heldBytes: 2 * GiB, playsPerProcess: 4, parkedCopyMb: 128 })).toBe(8);
    expect(SandboxPool.memoryCapacity(40, { limitMb: 1024, availableBytes: 10 * GiB, heldBytes: 2 * GiB, playsPerProcess: 1, parkedCopyMb: 128 })).toBe(12);
  });

  it("counts the pristine copy a recyclable process keeps, at what it holds resident", () => {
    // 12 GiB over 1024 MiB + 512 MiB per process: 8; + 4 x 128 MiB parked copies besides: 6.
    expect(SandboxPool.memoryCapacity(40, { limitMb: 1024, availableBytes: 10 * GiB, heldBytes: 2 * GiB, pristineCopyMb: 512 })).toBe(8);
    expect(SandboxPool.memoryCapacity(40, { limitMb: 1024, availableBytes: 10 * GiB, heldBytes: 2 * GiB, playsPerProcess: 4, parkedCopyMb: 128, pristineCopyMb: 512 })).toBe(6);
  });
});

describe("sandboxWorkingSet", () => {
  it("is a process per game of a rollout, or the plays in flight over playsPerProcess when that is more", () => {
    expect(sandboxWorkingSet({ envsPerIteration: 12, sandbox: { playsPerProcess: 4 } }, 24)).toBe(12);
    expect(sandboxWorkingSet({ envsPerIteration: 12, sandbox: { playsPerProcess: 4 } }, 96)).toBe(24);
    expect(sandboxWorkingSet({ envsPerIteration: 2, sandbox: { playsPerProcess: 1 } }, 6)).toBe(6);
  });
});
