import { describe, expect, it } from "vitest";
import { attemptLabel, failureReason } from "../../../renderer/src/lib/environments/attemptLabels.js";

const attempt = (slot: number, n: number, valid = false, validationError: string | null = "no code") => ({ runId: 1, iteration: 0, slot, attempt: n, source: n === 0 ? ("designer" as const) : ("repair" as const), valid, validationError });

describe("attempt labels in the environment table", () => {
  it("groups repairs under the slot's first attempt", () => {
    const rows = [attempt(0, 0), attempt(0, 1), attempt(0, 2), attempt(1, 0)];
    const labels = rows.map((row, i) => attemptLabel(row, rows[i - 1] ?? null));
    expect(labels).toEqual([
      { slot: "slot 0", groupStart: true },
      { slot: "↳ repair 1", groupStart: false },
      { slot: "↳ repair 2", groupStart: false },
      { slot: "slot 1", groupStart: true },
    ]);
  });

  it("names the slot of a repair whose first attempt is not the row above (another order, another page)", () => {
    expect(attemptLabel(attempt(3, 1), attempt(2, 0))).toEqual({ slot: "slot 3 · repair 1", groupStart: true });
    expect(attemptLabel({ ...attempt(0, 1), source: "designer" }, attempt(0, 0))).toEqual({ slot: "↳ attempt 2", groupStart: false }); // an independent re-sample
    expect(attemptLabel({ runId: null, iteration: null, slot: null, attempt: null, source: "edit", valid: true, validationError: null }, null).slot).toBe("edit");
  });

  it("shows the first line of an invalid attempt's error, shortened, and nothing for valid ones", () => {
    expect(failureReason({ valid: false, validationError: "\nprompt too long (4300 > 2048 tokens): raise backend.contextSize\nmore" })).toBe("prompt too long (4300 > 2048 tokens): raise backend.contextSize");
    expect(failureReason({ valid: false, validationError: "x".repeat(200) })).toHaveLength(90);
    expect(failureReason({ valid: false, validationError: null })).toBe("no reason stored");
    expect(failureReason({ valid: true, validationError: null })).toBe("");
  });
});
