// Every rollout's metrics, replays included, from a scripted run on the reference schedule (a batch
// designed every 2 rollouts, scored after its 2-rollout window), checked against values worked out
// by hand from the scripted agent's rule: with the hint it always wins (return 1), without it wins
// only on an even token (return 1, else the turn limit ends the play at 0).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { RunProgress } from "../../main/cli/RunProgress.js";
import { openCorpus } from "../../main/corpus/openCorpus.js";
import { metricsCsv, metricsTensorboard } from "../../main/exports/writeRunMetrics.js";
import { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { plateauScore } from "../../main/selfplay/designerReward.js";
import type { LoopEvent } from "../../main/selfplay/LoopEvent.js";
import { SelfPlayLoop } from "../../main/selfplay/SelfPlayLoop.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { getEnvStats } from "../../main/store/queries/envStats.js";
import { listEnvironments } from "../../main/store/queries/environments.js";
import { getMetrics } from "../../main/store/queries/metrics.js";
import { createRun, getRun } from "../../main/store/queries/runs.js";
import { listRunNotes } from "../../main/store/queries/schedule.js";
import { ScriptedBackend, requestRole } from "../../main/bench/ScriptedBackend.js";
import { decodeEvent, readTfRecords } from "../support/tfEvents.js";
import { envCode, selfPlayReply, unhintedWins } from "../support/selfPlayScript.js";

let pool: SandboxPool;
beforeAll(async () => {
  pool = await SandboxPool.create({ size: 2 });
});
afterAll(async () => {
  await pool?.dispose();
});

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

interface PlayRow {
  environment_id: number;
  rollout: number;
  hinted: number;
  first_observation: string;
  total_tokens: number;
}

describe("rollout metrics", () => {
  it("every rollout, replays included, has its episodes, tokens, win rate, regret and hinted win rate; the designer reward is in the rollout that scores it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spade-rollout-metrics-"));
    const corpus = join(dir, "corpus.jsonl");
    writeFileSync(corpus, `${JSON.stringify({ text: "DOC:magic about doors" })}\n`);
    const config = parseRunConfig(
      {
        db: join(dir, "ws.sqlite"), seed: 7, iterations: 4, regenerationInterval: 2, envsPerIteration: 2, plays: 4, hintPlays: 4, maxTurns: 2,
        backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "scripted" }, corpus: { path: corpus },
      },
      "metrics.json",
    );
    expect(config.reward.proposerDelay).toBe(4); // the recipe's delay, capped by the interval: each batch is scored at the end of its second rollout
    const db = openDatabase(config.db);
    const run = createRun(db, { config, seed: config.seed });
    const events: LoopEvent[] = [];
    const loop = new SelfPlayLoop(run.id, config, { db, backend: new ScriptedBackend(selfPlayReply, 2), pool, corpus: await openCorpus(corpus), onEvent: (event) => events.push(event) });
    expect(await loop.run()).toBe("completed");

    const plays = db.prepare(`SELECT environment_id, rollout, hinted, first_observation, total_tokens FROM episodes WHERE run_id = ?`).all(run.id) as PlayRow[];
    const envs = listEnvironments(db, { runId: run.id, orderBy: "id" });
    const designerTokens = (rollout: number) => envs.filter((env) => env.iteration === rollout).reduce((sum, env) => sum + (env.tokens ?? 0), 0);
    // By hand: a game's win rate in a rollout is the share of its unhinted plays there that saw an even
    // token; hinted plays (rollouts 0 and 2) all win, so a game's regret is 1 - that win rate.
    const expected = [0, 1, 2, 3].map((rollout) => {
      const regeneration = rollout - (rollout % 2);
      const games = envs.filter((env) => env.iteration === regeneration && env.valid);
      const winRates = games.map((env) => {
        const unhinted = plays.filter((p) => p.environment_id === env.id && p.rollout === rollout && p.hinted === 0);
        expect(unhinted).toHaveLength(4);
        return unhinted.filter((p) => unhintedWins(p.first_observation)).length / 4;
      });
      const these = plays.filter((p) => p.rollout === rollout);
      return {
        episodes: rollout === regeneration ? 2 * (4 + 4) : 2 * 4,
        tokens: designerTokens(rollout) + these.reduce((sum, p) => sum + p.total_tokens, 0),
        meanWinRate: mean(winRates),
        meanRegret: mean(winRates.map((rate) => 1 - rate)),
        meanHintWinRate: 1,
        games: games.length,
      };
    });
    expect(expected.map((e) => e.games)).toEqual([2, 2, 2, 2]);
    expect(new Set(expected.map((e) => e.meanWinRate)).size).toBeGreaterThan(1); // the rollouts differ: a copied value would show

    // The designer reward of a batch by hand: the blend of its matched-timing regret (hinted mean 1
    // less the first rollout's unhinted win rate) and the plateau of the window's mean return.
    const batchReward = (regeneration: number) =>
      mean(
        envs.filter((env) => env.iteration === regeneration).map((env) => {
          const unhinted = (rollout: number) => plays.filter((p) => p.environment_id === env.id && p.rollout === rollout && p.hinted === 0).map((p) => (unhintedWins(p.first_observation) ? 1 : 0));
          const first = mean(unhinted(regeneration));
          const windowMean = mean([...unhinted(regeneration), ...unhinted(regeneration + 1)]);
          const reward = 0.4 * Math.min(1, Math.max(0, (1 - first) / 0.15)) + 0.6 * plateauScore(windowMean, [0.4, 0.6], 0.25);
          expect(getEnvStats(db, env.id)!.designerReward).toBeCloseTo(reward, 9);
          return reward;
        }),
      );

    const stored = getMetrics(db, run.id);
    expect(stored.map((row) => row.iteration)).toEqual([0, 1, 2, 3]);
    for (const [rollout, row] of stored.entries()) {
      const m = row.metrics;
      const e = expected[rollout]!;
      expect(m.episodes).toBe(e.episodes);
      expect(m.tokens).toBe(e.tokens);
      expect(m.tokens).toBeGreaterThan(0);
      expect(m.meanWinRate).toBeCloseTo(e.meanWinRate, 9);
      expect(m.meanRegret).toBeCloseTo(e.meanRegret, 9);
      expect(m.meanHintWinRate).toBe(e.meanHintWinRate);
      expect(m.tokensPerEnv).toBeCloseTo(e.tokens / 2, 9);
      expect(m.regeneration).toBe(rollout % 2 === 0 ? 1 : 0);
      if (rollout % 2 === 1) expect(m.validityRate).toBeNull(); // a replay designs nothing
    }
    expect(stored.map((row) => row.metrics.designerRewardsScored)).toEqual([null, 2, null, 2]);
    expect(stored[0]!.metrics.designerReward).toBeNull();
    expect(stored[1]!.metrics.designerReward).toBeCloseTo(batchReward(0), 9);
    expect(stored[2]!.metrics.designerReward).toBeNull();
    expect(stored[3]!.metrics.designerReward).toBeCloseTo(batchReward(2), 9);

    // `spade run`'s line for a replay rollout.
    const written: string[] = [];
    const progress = new RunProgress({ isTTY: false, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream);
    progress.handle({ type: "iterationStarted", runId: run.id, iteration: 1, iterations: 4 });
    for (const event of events) if (event.type === "iterationCompleted" && event.iteration === 1) progress.handle(event);
    const pct = (value: number) => `${Math.round(value * 100)}%`;
    expect(written.join("")).toContain(
      `iteration 1 of 4 done: replay, win rate ${pct(expected[1]!.meanWinRate)}, regret ${expected[1]!.meanRegret.toFixed(3)}, designer reward ${batchReward(0).toFixed(3)}, novelty -, 8 episodes, ${expected[1]!.tokens} tokens`,
    );

    // metrics.csv and TensorBoard carry the replay rollouts' values.
    const runRow = getRun(db, run.id)!;
    const csv = metricsCsv(db, [runRow]).files[0]!.bytes.toString("utf8").trim().split("\n").map((line) => line.split(","));
    const column = (name: string) => csv[0]!.indexOf(name);
    for (const rollout of [1, 3]) {
      const line = csv.find((cells) => cells[column("iteration")] === String(rollout))!;
      expect(Number(line[column("episodes")])).toBe(8);
      expect(Number(line[column("meanWinRate")])).toBeCloseTo(expected[rollout]!.meanWinRate, 9);
      expect(Number(line[column("meanRegret")])).toBeCloseTo(expected[rollout]!.meanRegret, 9);
      expect(Number(line[column("designerReward")])).toBeCloseTo(batchReward(rollout - 1), 9);
    }
    const events_ = readTfRecords(metricsTensorboard(db, [runRow]).files[0]!.bytes).map(decodeEvent);
    const scalar = (tag: string, step: number) => events_.find((event) => event.step === step && event.values.some(([t]) => t === tag))?.values.find(([t]) => t === tag)?.[1];
    expect(scalar("spade/episodes", 3)).toBe(8);
    expect(scalar("spade/meanWinRate", 3)).toBeCloseTo(expected[3]!.meanWinRate, 6);
    expect(scalar("spade/designerReward", 3)).toBeCloseTo(batchReward(2), 6);
    db.close();
  }, 120_000);

  it("a replay rollout whose batch has no valid game says so, and its metrics are gaps and zeros", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spade-rollout-empty-"));
    const config = parseRunConfig(
      {
        db: join(dir, "ws.sqlite"), seed: 7, iterations: 3, regenerationInterval: 2, envsPerIteration: 1, plays: 2, hintPlays: 1, maxTurns: 2,
        designer: { attempts: 1 }, backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "scripted" }, corpus: null,
      },
      "empty.json",
    );
    const db = openDatabase(config.db);
    const run = createRun(db, { config, seed: config.seed });
    const notes: string[] = [];
    const broken = new ScriptedBackend((request) => (requestRole(request) === "designer" ? "```python\n" + envCode.broken + "```\n" : selfPlayReply(request)), 1);
    const loop = new SelfPlayLoop(run.id, config, { db, backend: broken, pool, corpus: null, onEvent: (event) => event.type === "note" && notes.push(`${event.iteration}: ${event.text}`) });
    expect(await loop.run()).toBe("completed");
    expect(notes).toContain("1: rollout 1 replays the batch designed in rollout 0, which has no valid game: nothing to play until rollout 2 designs again (regenerationInterval 2)");
    expect(listRunNotes(db, run.id).filter((note) => note.kind === "empty replay").map((note) => note.iteration)).toEqual([1]); // rollout 2 designs again
    const replay = getMetrics(db, run.id)[1]!.metrics;
    expect(replay).toMatchObject({ episodes: 0, meanWinRate: null, meanRegret: null, validityRate: null });
    db.close();
  }, 60_000);
});
