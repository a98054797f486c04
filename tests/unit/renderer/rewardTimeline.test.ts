import { describe, expect, it } from "vitest";
import { downsampleTimeline } from "../../../renderer/src/features/episodes/lib/downsampleTimeline.js";
import { layoutTimeline, niceTicks, stepAtX, xForStep } from "../../../renderer/src/features/episodes/lib/layoutTimeline.js";
import type { TimelinePoint } from "../../../renderer/src/features/episodes/lib/prepareReplay.js";

const point = (step: number, reward: number | null, end: number | null = null): TimelinePoint => ({ step, reward, end });

describe("downsampleTimeline", () => {
  it("returns short timelines unchanged", () => {
    const points = [point(1, 0), point(2, 1, 1)];
    expect(downsampleTimeline(points, 10)).toEqual(points);
  });

  it("keeps each bucket's lowest and highest reward, so a one-step spike survives", () => {
    const points = Array.from({ length: 1000 }, (_, i) => point(i + 1, i === 500 ? 5 : i === 700 ? -3 : 0));
    const shown = downsampleTimeline(points, 100);
    expect(shown.length).toBeLessThanOrEqual(100);
    expect(shown.some((p) => p.reward === 5 && p.step === 501)).toBe(true);
    expect(shown.some((p) => p.reward === -3 && p.step === 701)).toBe(true);
    expect(shown.map((p) => p.step)).toEqual([...shown.map((p) => p.step)].sort((a, b) => a - b));
  });

  it("keeps gaps and episode-end markers", () => {
    const points = Array.from({ length: 400 }, (_, i) => point(i + 1, i >= 100 && i < 110 ? null : 0.5, i === 399 ? 0.5 : null));
    const shown = downsampleTimeline(points, 40);
    expect(shown.some((p) => p.reward === null)).toBe(true);
    expect(shown[shown.length - 1]).toEqual(point(400, 0.5, 0.5));
  });
});

describe("layoutTimeline", () => {
  it("draws one path whose pen lifts at a missing reward", () => {
    const layout = layoutTimeline([point(1, 0), point(2, 1), point(3, null), point(4, 0), point(5, 1, 1)], { width: 242, height: 120, left: 40, right: 2, top: 10, bottom: 10 });
    expect(layout.plot).toEqual({ left: 40, top: 10, width: 200, height: 100 });
    expect(layout.path).toBe("M40.0,110.0L90.0,10.0M190.0,110.0L240.0,10.0");
    expect(layout.ends).toEqual([{ x: 240, y: 10 }]);
    expect(layout.yTicks.map((t) => t.label)).toEqual(["0", "0.5", "1"]);
  });

  it("maps steps to x and back, clamped to the episode", () => {
    const layout = layoutTimeline(Array.from({ length: 101 }, (_, i) => point(i + 1, 0)), { width: 208, height: 100, left: 0, right: 8 });
    expect(xForStep(layout, 51)).toBe(100);
    expect(stepAtX(layout, 100)).toBe(51);
    expect(stepAtX(layout, -20)).toBe(1);
    expect(stepAtX(layout, 999)).toBe(101);
  });

  it("draws at most about one point per pixel for a long episode", () => {
    const layout = layoutTimeline(Array.from({ length: 10_000 }, (_, i) => point(i + 1, Math.sin(i))), { width: 540, height: 120 });
    expect(layout.vertices.length).toBeLessThanOrEqual(layout.plot.width);
    expect(layout.xTicks.map((t) => t.label)).toEqual(["2000", "4000", "6000", "8000", "10000"]);
  });
});

describe("niceTicks", () => {
  it("picks round steps", () => {
    expect(niceTicks(0, 1, 3)).toEqual([0, 0.5, 1]);
    expect(niceTicks(1, 1000, 5)).toEqual([200, 400, 600, 800, 1000]);
    expect(niceTicks(-1, 1, 4)).toEqual([-1, -0.5, 0, 0.5, 1]);
    expect(niceTicks(3, 3, 4)).toEqual([3]);
  });
});
