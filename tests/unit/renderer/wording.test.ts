import { describe, expect, it } from "vitest";
import { diagnosisHeading } from "../../../renderer/src/features/runs/lib/diagnosisHeading.js";
import { countOf } from "../../../renderer/src/lib/format/countOf.js";

describe("the words a page uses", () => {
  it("counts in the right number: 1 turn, 2 turns", () => {
    expect(countOf(1, "turn")).toBe("1 turn");
    expect(countOf(0, "turn")).toBe("0 turns");
    expect(countOf(3, "turn")).toBe("3 turns");
    expect(countOf(2, "library", "libraries")).toBe("2 libraries");
  });

  it("says 'yet' about a missing valid environment only while the run can still make one", () => {
    expect(diagnosisHeading("running")).toBe("No valid environment yet.");
    expect(diagnosisHeading("paused")).toBe("No valid environment yet.");
    for (const ended of ["completed", "stopped", "failed"] as const) expect(diagnosisHeading(ended)).toBe("No valid environment in this run.");
  });
});
