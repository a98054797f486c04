import { describe, expect, it } from "vitest";
import { replyProblem } from "../../main/sandbox/SandboxProcess.js";

// The start-up phases come from the child, like every other reply field: untrusted and checked.

const init = (phases: unknown) => ({ id: 1, ok: true, output: "", startMs: 12, snapshot: null, memoryBytes: 31457280, phases });

describe("the start-up phases in the child's init reply", () => {
  it("accepts a list of [name, cpu ms, wall ms]", () => {
    expect(replyProblem(init([["nodeStart", 60.5, 200], ["snapshotRestore", 240, 900.1]]), 1)).toBeNull();
    expect(replyProblem(init([]), 1)).toBeNull();
  });

  it("refuses phases that are not short names with finite, non-negative numbers", () => {
    for (const phases of [
      "nodeStart",
      [["nodeStart", 60]],
      [["nodeStart", -1, 2]],
      [["nodeStart", 1, Number.NaN]],
      [["node start; rm -rf", 1, 2]],
      [["x".repeat(41), 1, 2]],
      [[7, 1, 2]],
      Array.from({ length: 33 }, () => ["phase", 1, 1]),
    ]) {
      expect(replyProblem(init(phases), 1)).toBe("a frame whose phases has the wrong type");
    }
  });
});
