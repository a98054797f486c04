import { describe, expect, it } from "vitest";
import { episodeReturn, withHint } from "../../shared/environment.js";

describe("episodeReturn (SPADE's episode rule)", () => {
  it("counts the last reward of a terminated episode, clipped to [-1, 1]", () => {
    expect(episodeReturn({ reward: 0.5, terminated: true })).toBe(0.5);
    expect(episodeReturn({ reward: 3, terminated: true })).toBe(1);
    expect(episodeReturn({ reward: -7, terminated: true })).toBe(-1);
  });
  it("gives 0 for a truncated or unfinished episode and for no step at all", () => {
    expect(episodeReturn({ reward: 1, terminated: false })).toBe(0);
    expect(episodeReturn(undefined)).toBe(0);
    expect(episodeReturn({ reward: Number.NaN, terminated: true })).toBe(0);
  });
});

describe("withHint", () => {
  it("appends the hint in SPADE's format", () => {
    expect(withHint("You see a door.", "Try the key.")).toBe("You see a door.\n\nHINT: Try the key.");
  });
});
