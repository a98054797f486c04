import { describe, expect, it } from "vitest";
import { median } from "../../main/util/median.js";

describe("median", () => {
  it("is null for no values", () => {
    expect(median([])).toBeNull();
  });

  it("takes the middle value, the upper one of an even count, without reordering the input", () => {
    const values = [5, 1, 3];
    expect(median(values)).toBe(3);
    expect(values).toEqual([5, 1, 3]);
    expect(median([4, 1, 3, 2])).toBe(3);
    expect(median([0.5])).toBe(0.5);
  });
});
