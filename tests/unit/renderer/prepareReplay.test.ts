import { describe, expect, it } from "vitest";
import type { TurnView } from "../../../shared/api/episodeTypes.js";
import { prepareReplay, prepareTimeline, stepForKey } from "../../../renderer/src/features/episodes/lib/prepareReplay.js";

function turn(idx: number, extra: Partial<TurnView> = {}): TurnView {
  return { idx, messages: null, rawReply: null, reasoning: null, action: `a${idx}`, observation: `o${idx}`, reward: 0, terminated: false, truncated: false, info: null, latencyMs: null, promptTokens: null, completionTokens: null, ...extra };
}

describe("prepareReplay", () => {
  it("orders turns and shows what the agent saw: its prompt's last user message, else the previous observation", () => {
    const steps = prepareReplay([turn(1), turn(0, { messages: [{ role: "system", content: "s" }, { role: "user", content: "first" }] }), turn(2, { reward: Number.NaN })]);
    expect(steps.map((s) => s.action)).toEqual(["a0", "a1", "a2"]);
    expect(steps.map((s) => s.seen)).toEqual(["first", "o0", "o1"]);
    expect(steps[2]!.reward).toBeNull();
    expect(prepareReplay([turn(0), turn(1)], "start")[0]!.seen).toBe("start");
  });

  it("marks the end of the episode on the timeline and keeps missing rewards as gaps", () => {
    const timeline = prepareTimeline(prepareReplay([turn(0, { reward: null }), turn(1, { reward: 1, terminated: true })]));
    expect(timeline).toEqual([
      { step: 1, reward: null, end: null },
      { step: 2, reward: 1, end: 1 },
    ]);
  });

  it("ends a play by its outcome and a cut-off play with its stored stop reason", () => {
    const ends = (turns: TurnView[]) => prepareReplay(turns).map((step) => step.end);
    expect(ends([turn(0, { reward: 0.5 }), turn(1, { reward: 0.5, terminated: true })])).toEqual([null, { label: "terminated · won", tone: "good" }]);
    expect(ends([turn(0, { reward: 0, terminated: true })])).toEqual([{ label: "terminated · lost", tone: "bad" }]);
    expect(ends([turn(0, { reward: 1 }), turn(1, { reward: -1, terminated: true })])[1]).toEqual({ label: "terminated · lost", tone: "bad" });
    expect(ends([turn(0, { truncated: true, info: { stop: "length" } })])).toEqual([{ label: "truncated · stop: length", tone: "neutral" }]);
    expect(ends([turn(0, { truncated: true, info: {} })])).toEqual([{ label: "truncated", tone: "neutral" }]);
  });

  it("moves one step with the arrow keys and clamps at both ends", () => {
    expect(stepForKey("ArrowRight", 0, 3)).toBe(1);
    expect(stepForKey("ArrowRight", 2, 3)).toBe(2);
    expect(stepForKey("ArrowLeft", 0, 3)).toBe(0);
    expect(stepForKey("End", 0, 3)).toBe(2);
    expect(stepForKey("Home", 2, 3)).toBe(0);
    expect(stepForKey("x", 1, 3)).toBeNull();
    expect(stepForKey("ArrowRight", 0, 0)).toBeNull();
  });
});
