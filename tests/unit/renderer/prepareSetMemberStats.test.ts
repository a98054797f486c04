import { describe, expect, it } from "vitest";
import { prepareSetMemberStats } from "../../../renderer/src/features/environments/lib/prepareSetMemberStats.js";
import type { EnvSetMemberView } from "../../../shared/api/envSetTypes.js";

const member: EnvSetMemberView = { codeSha256: "ab", environmentId: 1, className: "GuessNumberEnv", skill: "Logical Deduction", hint: null, winRate: 0.5, hintWinRate: 1, regret: 0.5, source: "run:1" };

describe("prepareSetMemberStats", () => {
  it("shows a member's plays across runs", () => {
    const played = { runs: 3, plays: 24, hintPlays: 8, winRate: 0.25, hintWinRate: 0.75, meanReturn: 0.1, hintMeanReturn: 0.6, regret: 0.5 };
    expect(prepareSetMemberStats({ ...member, played })).toEqual({ runs: "3", plays: "24 / 8", winRate: "25.0%", hintWinRate: "75.0%", regret: "0.500", basis: "plays" });
  });

  it("falls back to the values the member was added with when it was never played, and says so", () => {
    expect(prepareSetMemberStats({ ...member, played: null })).toEqual({ runs: "0", plays: "0 / 0", winRate: "50.0%", hintWinRate: "100.0%", regret: "0.500", basis: "added" });
    expect(prepareSetMemberStats(member).basis).toBe("added");
  });
});
