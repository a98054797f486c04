// RLVE's sliding-window difficulty controller against its written-down rule: only plays at the
// window's top count; after tauNum of them, accuracy >= tauAcc promotes the top (and drags the
// bottom to top - dDelta + 1); the count restarts either way; never above maxDifficulty.
import { describe, expect, it } from "vitest";
import { SlidingWindowController } from "../../main/library/SlidingWindowController.js";

const config = { tauAcc: 0.75, tauNum: 4, dDelta: 2, maxDifficulty: 3 };

describe("SlidingWindowController", () => {
  it("starts at [0, 0] and draws 0", () => {
    const controller = new SlidingWindowController(config);
    expect(controller.window("A")).toEqual({ low: 0, high: 0, attemptsAtHigh: 0, successesAtHigh: 0 });
    expect(controller.sample("A", 0.99)).toBe(0);
  });

  it("promotes after tauNum plays at the top with accuracy >= tauAcc, and moves the bottom with dDelta", () => {
    const controller = new SlidingWindowController(config);
    for (const result of [1, 1, 1, 0]) controller.update("A", 0, result); // 3 / 4 = 0.75 >= 0.75
    expect(controller.window("A")).toEqual({ low: 0, high: 1, attemptsAtHigh: 0, successesAtHigh: 0 });
    for (const result of [1, 1, 1, 1]) controller.update("A", 1, result);
    // high 2, low = max(0, 2 - 2 + 1) = 1
    expect(controller.window("A")).toMatchObject({ low: 1, high: 2 });
    expect([0, 0.49, 0.5, 0.99].map((r) => controller.sample("A", r))).toEqual([1, 1, 2, 2]);
  });

  it("counts only plays at the top; a failed check restarts the count without promoting", () => {
    const controller = new SlidingWindowController(config);
    for (const result of [1, 1, 0, 0]) controller.update("A", 0, result); // 0.5 < 0.75
    expect(controller.window("A")).toEqual({ low: 0, high: 0, attemptsAtHigh: 0, successesAtHigh: 0 });
    controller.update("A", 1, 1); // not at the top: ignored
    controller.update("A", 0, 0.5); // a return above 0 is a success
    expect(controller.window("A")).toEqual({ low: 0, high: 0, attemptsAtHigh: 1, successesAtHigh: 1 });
    controller.update("B", 0, 1);
    expect(controller.window("B").attemptsAtHigh).toBe(1);
    expect(controller.window("A").attemptsAtHigh).toBe(1);
  });

  it("never promotes past maxDifficulty", () => {
    const controller = new SlidingWindowController(config);
    for (let level = 0; level < 6; level++) for (let i = 0; i < 4; i++) controller.update("A", controller.window("A").high, 1);
    expect(controller.window("A")).toMatchObject({ low: 2, high: 3 });
  });
});
