import { describe, expect, it } from "vitest";
import { describeSchedule } from "../../shared/describeSchedule.js";

const llm = { kind: "llm" as const };

describe("describeSchedule", () => {
  it("says when a short run designs only in rollout 0, and when games are designed otherwise", () => {
    expect(describeSchedule({ iterations: 3, regenerationInterval: 4, designer: llm })).toBe(
      'games are designed in rollout 0 only (regenerationInterval 4, 3 iterations): rollouts 1-2 replay that batch; a lower "regenerationInterval" designs more often',
    );
    expect(describeSchedule({ iterations: 2, regenerationInterval: 2, designer: llm })).toMatch(/^games are designed in rollout 0 only .*: rollout 1 replays that batch/);
    expect(describeSchedule({ iterations: 9, regenerationInterval: 4, designer: llm })).toBe("games are designed every 4 rollouts (in rollouts 0, 4, 8); the rollouts between replay the last batch");
    expect(describeSchedule({ iterations: 9, regenerationInterval: 1, designer: llm })).toBeNull();
    expect(describeSchedule({ iterations: 1, regenerationInterval: 4, designer: llm })).toBeNull();
    expect(describeSchedule({ iterations: 9, regenerationInterval: 4, designer: { kind: "fixed" } })).toBeNull();
  });
});
