import { describe, expect, it } from "vitest";
import { prepareHintsSkipped } from "../../../renderer/src/features/runs/lib/prepareHintsSkipped.js";

describe("prepareHintsSkipped", () => {
  it("groups the games by reason (numbers aside), the largest group first", () => {
    const groups = prepareHintsSkipped([
      { environmentId: 9, reason: "the hint prompt does not fit the context (2301 > 2048 tokens)" },
      { environmentId: 4, reason: "the hint writer replied nothing 3 times" },
      { environmentId: 7, reason: "the hint prompt does not fit the context (2210 > 2048 tokens)" },
    ]);
    expect(groups).toEqual([
      { reason: "the hint prompt does not fit the context (2210 > 2048 tokens)", environmentIds: [7, 9] },
      { reason: "the hint writer replied nothing 3 times", environmentIds: [4] },
    ]);
    expect(prepareHintsSkipped(undefined)).toEqual([]);
  });
});
