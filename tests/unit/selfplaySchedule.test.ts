// The reference recipe's schedule and reward arithmetic, pure: recipes and deviations in the
// config, rollouts and regenerations, skill rotation, the delayed designer reward checked to 1e-9
// against a worked example computed by hand (below), the fixed pool's draws, the work graph.
import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { recipeGameSkills as gameSkills, recipeToolUseSkills as toolUseSkills } from "../../shared/skills.js";
import { LearningPotentialTracker, microLearningPotential, scoreBatch, varianceBonus, type ScoredGame } from "../../main/selfplay/designerReward.js";
import { describeAblations } from "../../main/selfplay/describeAblations.js";
import { drawFixedPool } from "../../main/selfplay/drawFixedPool.js";
import { activeSkills, batchScoredAt, isRegeneration, regenerationOf, rewardDueAt, slotSkill, unhintedPlayIndex } from "../../main/selfplay/rolloutSchedule.js";
import { WorkGraph, WorkGraphError } from "../../main/selfplay/WorkGraph.js";

const base = { db: "w.sqlite", backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "scripted" }, corpus: null };
const parse = (extra: Record<string, unknown> = {}) => parseRunConfig({ ...base, ...extra }, "run.json");
/** The games recipe's scale with every game valid (192 / 24 x 4), as the worked example uses. */
/** The badges besides LoRA's (this project's deviation on every training run). */
const notLora = (badges: string[]) => badges.filter((badge: string) => !badge.startsWith("deviation: LoRA"));
const at32 = (reward: ReturnType<typeof parse>["reward"]) => ({ ...reward, scale: 32 });
const near = (actual: number | null, expected: number) => expect(Math.abs((actual ?? NaN) - expected)).toBeLessThan(1e-9);

describe("recipes", () => {
  it("a config with no recipe follows the games launchers", () => {
    const c = parse();
    expect(c).toMatchObject({ recipe: "spade-games", seed: 42, iterations: 400, envsPerIteration: 24, actorBatch: 192, plays: null, hintPlays: 16, maxTurns: 25, regenerationInterval: 4, skillsPerRegen: 3, canary: true });
    expect(c.designer).toMatchObject({ attempts: 5, repair: false, temperature: 0.6, topP: 0.95, topK: 20, maxTokens: 16384, skills: gameSkills, difficulty: "medium", randomDifficulty: false, toolUse: false });
    expect(c.reward).toMatchObject({ kind: "blend", regretScale: 0.15, regretWeight: 0.4, plateauWeight: 0.6, plateau: [0.4, 0.6], ramp: 0.25, timeoutInBlend: false, proposerDelay: 4, scale: "auto", lpFastGamma: 0.98, lpSlowGamma: 0.85, microLpWeight: 0, frontierWeight: 0 });
    expect(c.agent).toMatchObject({ temperature: 0.6, topP: 0.95, topK: 20, maxTokens: 8192 });
    expect(c.hint).toMatchObject({ temperature: 0.3, maxTokens: 4096, leakCheck: false, useEnvHint: false });
    expect(c.memory).toMatchObject({ enabled: true, capacity: 200, references: 2, novelty: false });
    expect(notLora(describeAblations(c))).toEqual(["no corpus"]); // the base config here has corpus: null
    expect(describeAblations(parse({ corpus: { path: "c.jsonl" } }))).toEqual(["deviation: LoRA rank 32 at lr 0.000001 (reference: every weight at 1e-6; its LoRA launcher: rank 32 at 1e-6)"]);
  });

  it("the tool-use recipe has its launcher's values; explicit keys override a recipe", () => {
    const c = parse({ recipe: "spade-tool-use", corpus: { path: "c.jsonl" }, plays: 4, reward: { proposerDelay: 2 } });
    expect(c).toMatchObject({ regenerationInterval: 8, skillsPerRegen: null, plays: 4, corpus: { maxWords: 4000 } });
    expect(c.designer).toMatchObject({ skills: toolUseSkills, toolUse: true });
    expect(c.reward).toMatchObject({ proposerDelay: 2, scale: "auto" });
    expect(c.training).toMatchObject({ compactFilter: true, hyper: { klCoef: 0.005 } }); // the tool-use launcher's KL penalty and compact filter
    expect(parse().training?.compactFilter).toBe(false);
    expect(c.agent.maskMalformedToolCalls).toBe(true); // SPADE_MASK_MALFORMED_TOOLCALL=1
    expect(parse().agent.maskMalformedToolCalls).toBe(false);
    expect(parse().training?.hyper.klCoef).toBe(0);
    expect(c.hint.maxTokens).toBe(2048);
    expect(() => parse({ recipe: "paper" })).toThrow(/run\.json: recipe: expected one of "spade-games", "spade-tool-use"/);
  });

  it("every deviation is a named key and a badge", () => {
    const c = parse({ designer: { repair: true, skills: ["Planning"], difficulties: ["easy", "hard"] }, memory: { novelty: true }, hint: { leakCheck: true, useEnvHint: true }, reward: { timeoutInBlend: true, kind: "azr" } });
    expect(c.designer.randomDifficulty).toBe(true); // an old config's difficulties keep being drawn from
    expect(notLora(describeAblations(c))).toEqual([
      "no corpus",
      "reward: azr (this project's addition)",
      "deviation: repair turns",
      "deviation: novelty gate on memory",
      "deviation: hint leak check",
      "deviation: environment's own hint()",
      "deviation: timeout penalty in blend",
      "deviation: random difficulty",
      "deviation: our skill list",
    ]);
    expect(notLora(describeAblations(parse({ reward: { kind: "variance" } })))).toEqual(["no corpus", "reward: learning potential + variance add-on"]);
    expect(describeAblations(parse({ training: null, plays: 4, reward: { scale: 10 } }))).toEqual(["no corpus", "collect only (no training)", "deviation: designer reward scale 10"]);
    expect(notLora(describeAblations(parse({ training: { every: 2, includeCanary: false } })))).toEqual(["no corpus", "deviation: training every 2 rollouts", "deviation: canary plays not trained"]);
  });

  it("reads a parsed config back as itself, and the old required keys still work", () => {
    const old = parse({ seed: 1, iterations: 2, envsPerIteration: 3, plays: 8, hintPlays: 8, maxTurns: 5 });
    expect(old).toMatchObject({ seed: 1, iterations: 2, envsPerIteration: 3, plays: 8 });
    expect(parseRunConfig(JSON.parse(JSON.stringify(old)), "stored")).toEqual(old);
    const toolUse = parse({ recipe: "spade-tool-use" });
    expect(parseRunConfig(JSON.parse(JSON.stringify(toolUse)), "stored")).toEqual(toolUse);
  });
});

describe("the rollout schedule", () => {
  const c = parse({ iterations: 10 });
  it("regenerates every 4 rollouts and replays in between", () => {
    expect([0, 1, 2, 3, 4, 7, 8, 9].map((i) => regenerationOf(i, c))).toEqual([0, 0, 0, 0, 4, 4, 8, 8]);
    expect([0, 1, 4, 5].map((i) => isRegeneration(i, c))).toEqual([true, false, true, false]);
    // A fixed pool deals new games every rollout, as the reference's static pool does.
    expect(isRegeneration(1, parse({ designer: { kind: "fixed", set: "pool" } }))).toBe(true);
  });
  it("rotates 3 of the 6 skills per regeneration, slots taking them in turn", () => {
    expect(activeSkills(0, c)).toEqual(gameSkills.slice(0, 3));
    expect(activeSkills(4, c)).toEqual(gameSkills.slice(3, 6));
    expect(activeSkills(8, c)).toEqual(gameSkills.slice(0, 3));
    expect([0, 1, 2, 3, 4].map((slot) => slotSkill(4, slot, c))).toEqual([gameSkills[3], gameSkills[4], gameSkills[5], gameSkills[3], gameSkills[4]]);
    expect(activeSkills(4, parse({ skillsPerRegen: null }))).toEqual(gameSkills);
  });
  it("scores a batch after the proposer delay, and the last batch at the end of the run", () => {
    expect(rewardDueAt(0, c)).toBe(3);
    expect([0, 1, 2, 3, 4, 7, 8, 9].map((i) => batchScoredAt(i, c))).toEqual([null, null, null, 0, null, 4, null, 8]);
    expect(rewardDueAt(0, parse({ iterations: 10, reward: { proposerDelay: 2 } }))).toBe(1);
    expect(rewardDueAt(0, parse({ iterations: 10, reward: { proposerDelay: 0 } }))).toBe(0);
  });
  it("numbers a game's unhinted plays across its rollouts", () => {
    expect(unhintedPlayIndex(6, 2, c, 16)).toBe(2 * 16 + 2);
  });
});

describe("the delayed designer reward (worked example)", () => {
  // Batch of three games, window of two rollouts, four unhinted plays per rollout, four hinted.
  //  g1 (skill A): rollout 0 [1,0,0,0] mean .25, rollout 1 [1,1,0,0] mean .5, hinted [1,1,0,1] mean .75
  //     regret = .75 - .25 = .5 -> .5/.15 clipped to 1; window mean 3/8 = .375 -> plateau 1 - .025/.25 = .9
  //     blend = .4 * 1 + .6 * .9 = .94
  //  g2 (skill A): [0,0,0,0], [0,0,0,1], hinted [0,0,0,0]: regret 0, window mean .125 -> plateau 0: blend 0
  //  g3 (skill B): [1,1,1,1], [1,1,1,.5], hinted [1,1,1,1]: regret 0, window mean .9375 -> plateau 0: blend 0
  //  skill A mean .47: advantages (.94 - .47) * 32 = 15.04 and -15.04; skill B alone: 0.
  const games: ScoredGame[] = [
    { skill: "A", returnsByRollout: [[1, 0, 0, 0], [1, 1, 0, 0]], hintedReturns: [1, 1, 0, 1], timedOut: false },
    { skill: "A", returnsByRollout: [[0, 0, 0, 0], [0, 0, 0, 1]], hintedReturns: [0, 0, 0, 0], timedOut: false },
    { skill: "B", returnsByRollout: [[1, 1, 1, 1], [1, 1, 1, 0.5]], hintedReturns: [1, 1, 1, 1], timedOut: false },
  ];
  it("blend: matched-timing regret, plateau on the window's mean return, centred per skill x 32", () => {
    const scores = scoreBatch(games, at32(parse().reward), new Map());
    near(scores[0]!.regret, 0.5);
    near(scores[0]!.windowMean, 0.375);
    near(scores[0]!.reward, 0.94);
    near(scores[1]!.reward, 0);
    near(scores[2]!.reward, 0);
    near(scores[0]!.advantage, 15.04);
    near(scores[1]!.advantage, -15.04);
    near(scores[2]!.advantage, 0);
    expect(scores.map((s) => s.masked)).toEqual([false, false, false]);
  });
  it("masks a negative blend (frontier term) out of the centring", () => {
    // frontier weight 1: g2 pays (.125 - .5)^2 / .08 = 1.7578125 -> blend < 0 -> masked; g1 pays (.375-.5)^2/.08 = .1953125
    const scores = scoreBatch(games, at32(parse({ reward: { frontierWeight: 1 } }).reward), new Map());
    expect(scores[1]).toMatchObject({ masked: true, advantage: null });
    near(scores[1]!.reward, -1.7578125);
    near(scores[0]!.reward, 0.94 - 0.1953125);
    near(scores[0]!.advantage, 0); // the only unmasked game of skill A
  });
  it("no timeout term in the blend unless the deviation asks; the regret variant pays -0.5", () => {
    const timed = [{ ...games[0]!, timedOut: true }];
    near(scoreBatch(timed, at32(parse().reward), new Map())[0]!.reward, 0.94);
    near(scoreBatch(timed, at32(parse({ reward: { timeoutInBlend: true } }).reward), new Map())[0]!.reward, -0.5);
    near(scoreBatch(timed, at32(parse({ reward: { kind: "regret" } }).reward), new Map())[0]!.reward, -0.5);
    // regret_based: hinted mean .75 - the whole window's unhinted mean .375, not divided by .15.
    near(scoreBatch(games.slice(0, 1), at32(parse({ reward: { kind: "regret" } }).reward), new Map())[0]!.reward, 0.375);
  });
  it("learning potential: |game mean - slow EMA| after updating the skill's tracker with the batch's mean", () => {
    // An earlier batch left skill A at 0.5. This batch's A mean is (3 + 1) / 16 = .25:
    // slow = .15 * .5 + .85 * .25 = .2875, fast = .02 * .5 + .98 * .25 = .255
    // g1: |.375 - .2875| = .0875; g2: |.125 - .2875| = .1625; monitoring gap |.255 - .2875| / (2 * .13) = .125
    const trackers = new Map([["A", new LearningPotentialTracker(0.98, 0.85)]]);
    trackers.get("A")!.update(0.5);
    const scores = scoreBatch(games, at32(parse({ reward: { kind: "learningPotential" } }).reward), trackers);
    near(scores[0]!.reward, 0.0875);
    near(scores[1]!.reward, 0.1625);
    near(trackers.get("A")!.gap(), 0.125);
    near(scores[0]!.advantage, (0.0875 - 0.125) * 32);
    // g3 is the first batch of skill B: the tracker starts at its mean, so the reward is 0.
    near(scores[2]!.reward, 0);
  });
  it("the variance variant adds the reference's add-on on the returns' variance", () => {
    // g1's window [1,0,0,0,1,1,0,0]: population variance .375 * .625 = .234375
    near(varianceBonus([1, 0, 0, 0, 1, 1, 0, 0]), Math.exp(-((0.234375 - 0.25) ** 2) / 0.02));
    const trackers = new Map([["A", new LearningPotentialTracker(0.98, 0.85)]]);
    trackers.get("A")!.update(0.5);
    near(scoreBatch(games, at32(parse({ reward: { kind: "variance" } }).reward), trackers)[0]!.reward, 0.0875 + Math.exp(-((0.234375 - 0.25) ** 2) / 0.02));
  });
  it("micro learning potential: weighted least-squares slope as fitted end minus start", () => {
    near(microLearningPotential([[1, 0, 0, 0], [1, 1, 0, 0]]), 0.25);
    // means [0, .5, .5] with 1, 4, 4 plays (weights^2 = plays): slope 1/6, times 2 steps = 1/3
    near(microLearningPotential([[0], [1, 0, 1, 0], [1, 1, 0, 0]]), 1 / 3);
    near(microLearningPotential([[1]]), 0);
  });
});

describe("the fixed pool", () => {
  it("deals without replacement until the pool is used up, then reshuffles", () => {
    const rollouts = [0, 1, 2].map((r) => drawFixedPool(3, 5, 2, r));
    for (const draw of rollouts) expect(new Set(draw).size).toBe(2);
    expect(new Set([...rollouts[0]!, ...rollouts[1]!, rollouts[2]![0]!]).size).toBe(5);
    expect(drawFixedPool(3, 5, 2, 1)).toEqual(rollouts[1]); // pure in (seed, pool, rollout)
    expect(drawFixedPool(3, 1, 2, 0)).toEqual([0, 0]); // a pool smaller than a rollout repeats within it
  });
});

describe("WorkGraph", () => {
  it("starts each unit when its own dependencies are done, within per-kind limits", async () => {
    const log: string[] = [];
    const task = (id: string, ms: number) => async () => {
      log.push(`start ${id}`);
      await new Promise((r) => setTimeout(r, ms));
      log.push(`end ${id}`);
    };
    const graph = new WorkGraph<"design" | "play">()
      .add({ id: "slow", kind: "design", after: [], run: task("slow", 60) })
      .add({ id: "fast", kind: "design", after: [], run: task("fast", 5) })
      .add({ id: "slow-play", kind: "play", after: ["slow"], run: task("slow-play", 5) })
      .add({ id: "fast-play-1", kind: "play", after: ["fast"], run: task("fast-play-1", 10) })
      .add({ id: "fast-play-2", kind: "play", after: ["fast"], run: task("fast-play-2", 10) });
    await graph.run({ limits: { play: 1 } });
    expect(log.indexOf("start fast-play-1")).toBeLessThan(log.indexOf("end slow"));
    expect(log.indexOf("start fast-play-2")).toBeGreaterThan(log.indexOf("end fast-play-1")); // play limit 1
    expect(log.at(-1)).toBe("end slow-play");
  });
  it("refuses a missing dependency and a cycle, and throws the first failure", async () => {
    await expect(new WorkGraph().add({ id: "a", kind: "k", after: ["b"], run: async () => {} }).run()).rejects.toThrow(WorkGraphError);
    const cycle = new WorkGraph().add({ id: "a", kind: "k", after: ["b"], run: async () => {} }).add({ id: "b", kind: "k", after: ["a"], run: async () => {} });
    await expect(cycle.run()).rejects.toThrow(/cycle: a, b/);
    const failing = new WorkGraph().add({ id: "a", kind: "k", after: [], run: async () => { throw new Error("boom"); } });
    await expect(failing.run()).rejects.toThrow("boom");
  });

  it("runs units a running unit adds once their dependencies are done, and refuses one that waits for an unknown unit", async () => {
    const log: string[] = [];
    const graph = new WorkGraph<"k">();
    graph
      .add({ id: "first", kind: "k", after: [], run: async () => void log.push("first") })
      .add({ id: "count", kind: "k", after: ["first"], run: async () => {
        log.push("count");
        for (const id of ["x", "y"]) graph.add({ id, kind: "k", after: ["first", "count"], run: async () => void log.push(id) });
        expect(() => graph.add({ id: "z", kind: "k", after: ["nowhere"], run: async () => {} })).toThrow(/waits for "nowhere"/);
      } });
    await graph.run();
    expect(log).toEqual(["first", "count", "x", "y"]);
  });

  it("spreads a kind's limited room over the groups: a unit of a group with fewer in flight goes first", async () => {
    // Game a's 6 plays are ready before game b's 6; with room for 4, b still gets half of it, and
    // each place freed goes to the game with fewer plays in flight.
    const started: string[] = [];
    const graph = new WorkGraph<"play">();
    for (const game of ["a", "b"]) {
      for (let index = 0; index < 6; index++) {
        graph.add({ id: `${game}${index}`, kind: "play", after: [], group: game, run: async () => {
          started.push(`${game}${index}`);
          await new Promise((resolve) => setTimeout(resolve, game === "a" ? 5 : 30));
        } });
      }
    }
    await graph.run({ limits: { play: 4 } });
    expect(started.slice(0, 4).sort()).toEqual(["a0", "a1", "b0", "b1"]);
    // b's plays are slow: while two of them run, a freed place goes to a (fewer in flight), in order.
    expect(started.slice(4, 6)).toEqual(["a2", "a3"]);
    expect(started).toHaveLength(12);
  });

  it("holds a group to its share of the limit while another group in flight has more to come, and not once it has none", async () => {
    // Game a's plays are all ready at once; game b's canary (b0) runs first and lets b's other two
    // plays go when it ends. Room for 6: a takes no more than its share (3 of 6, b counting as a game
    // with more to come) until b0 is done; once b's plays are all in flight, a may use the rest (4).
    const inFlight = { a: 0, b: 0 };
    const aWhileBWaits: number[] = [];
    const aWhileBRunsItsLast: number[] = [];
    let bWaiting = true;
    const graph = new WorkGraph<"play">();
    const unit = (game: "a" | "b", id: string, ms: number, after: string[] = []) =>
      graph.add({ id, kind: "play", after, group: game, run: async () => {
        inFlight[game]++;
        if (game === "a" && bWaiting) aWhileBWaits.push(inFlight.a);
        if (game === "a" && !bWaiting && inFlight.b > 0) aWhileBRunsItsLast.push(inFlight.a);
        await new Promise((resolve) => setTimeout(resolve, ms));
        inFlight[game]--;
      } });
    for (let index = 0; index < 12; index++) unit("a", `a${index}`, 40);
    graph.add({ id: "b0", kind: "play", after: [], group: "b", run: async () => {
      inFlight.b++;
      await new Promise((resolve) => setTimeout(resolve, 15));
      inFlight.b--;
      bWaiting = false;
    } });
    unit("b", "b1", 200, ["b0"]);
    unit("b", "b2", 200, ["b0"]);
    await graph.run({ limits: { play: 6 } });
    expect(aWhileBWaits.length).toBeGreaterThan(0);
    expect(Math.max(...aWhileBWaits)).toBe(3);
    // b's last two plays run for 200 ms: a's plays fill the other four places meanwhile.
    expect(Math.max(...aWhileBRunsItsLast)).toBe(4);
  });
});
