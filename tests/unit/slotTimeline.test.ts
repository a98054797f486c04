import { describe, expect, it } from "vitest";
import { slotTimeline, type TracedMark } from "../../main/bench/slotTimeline.js";

const marks = (play: string, moments: Array<[TracedMark["mark"], number]>): TracedMark[] => moments.map(([mark, at]) => ({ play, mark, at }));

describe("slotTimeline", () => {
  it("puts each idle stretch of a slot down to what the play of its next request was doing", () => {
    const timeline = slotTimeline(
      [
        { key: "p1", calledAt: 0, returnedAt: 300 },
        { key: "p2", calledAt: 10, returnedAt: 310 },
        { key: "p3", calledAt: 400, returnedAt: 700 },
        { key: "design", calledAt: 500, returnedAt: 800 },
      ],
      marks("p3", [["started", 320], ["opening", 320], ["opened", 350], ["observed", 380], ["asking", 400]]),
      { slots: 2, startAt: 0, endAt: 1000 },
    );
    // slot 0: p1 at once, then idle 300-400 until p3 asks; slot 1: idle 0-10 (p2 not started), p2, idle 310-500 (the designer call)
    expect(timeline.slots).toEqual([
      { busyMs: 600, startMs: 0, betweenMs: 100, tailMs: 300 },
      { busyMs: 600, startMs: 10, betweenMs: 190, tailMs: 200 },
    ]);
    expect(timeline.between).toEqual({ notStarted: 20, open: 30, reset: 30, firstRequest: 20, step: 0, betweenTurns: 0, design: 190 });
    expect(timeline.start).toMatchObject({ notStarted: 10 });
    expect(timeline.tailMs).toBe(500);
    expect(timeline.meanInFlight).toBeCloseTo(1.2);
    expect([timeline.handoverP50Ms, timeline.handoverP90Ms]).toEqual([190, 190]);
  });

  it("a request called while every slot is busy waits for the first to free (first called, first served): no idle time", () => {
    const timeline = slotTimeline(
      [
        { key: "a", calledAt: 0, returnedAt: 300 },
        { key: "b", calledAt: 0, returnedAt: 500 },
        { key: "c", calledAt: 100, returnedAt: 600 },
      ],
      [...marks("c", [["answered", 50], ["stepped", 80], ["asking", 100]])],
      { slots: 2, startAt: 0, endAt: 600 },
    );
    expect(timeline.slots[0]).toEqual({ busyMs: 600, startMs: 0, betweenMs: 0, tailMs: 0 });
    expect(Object.values(timeline.between).reduce((sum, ms) => sum + ms, 0)).toBe(0);
    expect(timeline.handoverP50Ms).toBe(0);
  });

  it("a step and the engine's work between turns are told apart", () => {
    const timeline = slotTimeline(
      [
        { key: "p", calledAt: 0, returnedAt: 300 },
        { key: "p", calledAt: 360, returnedAt: 660 },
      ],
      marks("p", [["started", 0], ["asking", 0], ["answered", 300], ["stepped", 340], ["asking", 360]]),
      { slots: 1, startAt: 0, endAt: 660 },
    );
    expect(timeline.between).toMatchObject({ step: 40, betweenTurns: 20 });
  });

  it("a request takes the slot that freed first, and a slot never used is idle from start to end", () => {
    const timeline = slotTimeline([{ key: "p", calledAt: 0, returnedAt: 300 }], [], { slots: 2, startAt: 0, endAt: 400 });
    expect(timeline.slots).toEqual([
      { busyMs: 300, startMs: 0, betweenMs: 0, tailMs: 100 },
      { busyMs: 0, startMs: 400, betweenMs: 0, tailMs: 0 },
    ]);
    expect(timeline.start.notStarted).toBe(400);
  });
});
