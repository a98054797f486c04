// The reference's `regret_based` designer reward and the memory's win rate, on numbers worked by hand.
import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { scoreBatch, type ScoredGame } from "../../main/selfplay/designerReward.js";
import { regenerationWinRate } from "../../main/selfplay/scoreRegeneration.js";

const base = { db: "w.sqlite", backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "scripted" }, corpus: null };
// A fixed scale of 32 (the recipe's is "auto", computed per scored batch).
const regretConfig = { ...parseRunConfig({ ...base, reward: { kind: "regret" } }, "run.json").reward, scale: 32 };
const near = (actual: number | null | undefined, expected: number) => expect(actual).toBeCloseTo(expected, 12);

describe("the regret kind is the reference's regret_based", () => {
  // Window of three rollouts (4 unhinted plays each), 4 hinted plays; one skill, scale 32.
  //  a: [1,0,0,0] [0,0,0,0] [1,1,0,0]: window mean 3/12 = .25; hinted [1,1,1,0] .75 -> regret .5
  //     (the matched-timing regret would be .75 - .25 = .5 too; the blend's term would be clip(.5/.15) = 1)
  //  b: [1,1,1,1] [1,1,1,1] [1,1,1,1]: window mean 1; hinted [1,1,0,0] .5 -> .5 - 1 < 0, floored to 0
  //  c: [0,0,0,0] [0,1,1,0] [1,1,1,1]: window mean 6/12 = .5; hinted [.5,.5,.5,.5] .5 -> 0,
  //     while the matched-timing regret is .5 - 0 = .5: the whole window is what counts
  //  d: a step time-out: -0.5 instead of any regret (not masked)
  //  skill mean (.5 + 0 + 0 - .5) / 4 = 0: advantages .5 x 32 = 16, 0, 0, -16
  const games: ScoredGame[] = [
    { skill: "A", returnsByRollout: [[1, 0, 0, 0], [0, 0, 0, 0], [1, 1, 0, 0]], hintedReturns: [1, 1, 1, 0], timedOut: false },
    { skill: "A", returnsByRollout: [[1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]], hintedReturns: [1, 1, 0, 0], timedOut: false },
    { skill: "A", returnsByRollout: [[0, 0, 0, 0], [0, 1, 1, 0], [1, 1, 1, 1]], hintedReturns: [0.5, 0.5, 0.5, 0.5], timedOut: false },
    { skill: "A", returnsByRollout: [[1, 1, 0, 0], [], []], hintedReturns: [1, 1, 1, 1], timedOut: true },
  ];

  it("is the hinted mean minus the whole window's unhinted mean, floored at 0, not scaled by regretScale; a time-out pays the penalty", () => {
    const scores = scoreBatch(games, regretConfig, new Map());
    near(scores[0]!.reward, 0.5);
    near(scores[1]!.reward, 0);
    near(scores[2]!.reward, 0);
    near(scores[3]!.reward, -0.5);
    expect(scores.map((score) => score.masked)).toEqual([false, false, false, false]);
    near(scores[0]!.advantage, 16);
    near(scores[1]!.advantage, 0);
    near(scores[2]!.advantage, 0);
    near(scores[3]!.advantage, -16);
    // The stored signed regret stays the matched-timing one (what memory records).
    near(scores[2]!.regret, 0.5);
    near(scores[1]!.regret, -0.5);
  });

  it("counts a game whose hint could not be written (no hinted plays) as regret 0, in every kind", () => {
    const unhinted: ScoredGame = { skill: "A", returnsByRollout: [[-1, -1, 0, 0]], hintedReturns: [], timedOut: false };
    const [regret] = scoreBatch([unhinted], regretConfig, new Map());
    near(regret!.reward, 0); // not 0 - (-.5) = .5
    near(regret!.regret, 0);
    const [blend] = scoreBatch([unhinted], { ...parseRunConfig(base, "run.json").reward, scale: 32 }, new Map());
    near(blend!.regret, 0);
  });
});

describe("the memory's win rate", () => {
  it("is the fraction of the regeneration rollout's unhinted plays with return > 0, not the window's", () => {
    expect(regenerationWinRate([[1, 0, 0.5, -1], [1, 1, 1, 1]])).toBe(0.5);
    expect(regenerationWinRate([[], [1]])).toBeNull();
    expect(regenerationWinRate([])).toBeNull();
  });
});
