import { describe, expect, it } from "vitest";
import { fitLabel, formatBytes, formatParameters } from "../../../renderer/src/features/models/lib/formatModelFacts.js";

describe("Models page formatting", () => {
  it("writes parameter counts and sizes the way model cards do", () => {
    expect(formatParameters(292_800)).toBe("293K");
    expect(formatParameters(7_615_616_512)).toBe("7.6B");
    expect(formatParameters(124_000_000)).toBe("124.0M");
    expect(formatBytes(1_185_376)).toBe("1.1 MB");
    expect(formatBytes(4.68 * 1024 ** 3)).toBe("4.7 GB");
  });

  it("names each fit verdict with a badge", () => {
    expect(fitLabel("gpu")).toEqual({ text: "fits the GPU", className: "badge badge-completed" });
    expect(fitLabel("no").text).toBe("too big");
    expect(new Set((["gpu", "partial", "cpu", "no"] as const).map((v) => fitLabel(v).className)).size).toBe(4);
  });
});
