// A workspace written before replay rollouts were measured on their own plays: its replay rows say
// 0 episodes and null win rate although the plays are stored. Opening it measures them again.
// The fixture is written as the old version wrote it: a schema-7 file, the old row shape.
import BetterSqlite3 from "better-sqlite3";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { migrateDatabase, readSchemaVersion, schemaVersion } from "../../main/store/migrateDatabase.js";
import { allMigrations } from "../../main/store/migrations/allMigrations.js";
import { repairDesignerRewards, repairReplayMetrics } from "../../main/store/migrations/008_replayMetrics.js";
import { openDatabase, spadeApplicationId } from "../../main/store/openDatabase.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { upsertEnvStats } from "../../main/store/queries/envStats.js";
import { insertEpisodeWithTurns } from "../../main/store/queries/episodes.js";
import { getMetrics, putMetrics, type MetricRecord } from "../../main/store/queries/metrics.js";
import { createRun } from "../../main/store/queries/runs.js";
import { setEpisodeRollout } from "../../main/store/queries/schedule.js";

/** A replay rollout's row as the old iterationMetrics wrote it (it counted the plays of games designed in the rollout: none), with the loop's own fields. */
const oldReplayRow = (wallTimeMs: number): MetricRecord => ({
  attempts: 0, validityRate: null, meanRegret: null, meanWinRate: null, meanHintWinRate: null, winRateHistogram: new Array(10).fill(0), designerReward: null,
  noveltyRate: null, vendiScore: null, vendiPerN: null, diversity: null, episodes: 0, stepTimeouts: 0, tokens: 0, tokensPerEnv: null, wallTimeMs, timePerEnvMs: null,
  regeneration: 0, designerRewardsScored: 2, designerMaskedRate: 0, learningPotentialGap: null, designerRewardScale: 1,
});

function writeOldWorkspace(path: string): { runId: number; otherRunId: number } {
  const raw = new BetterSqlite3(path);
  raw.pragma(`application_id = ${spadeApplicationId}`);
  const db = raw as unknown as WritableDb;
  migrateDatabase(db, path, allMigrations.slice(0, 7));
  expect(readSchemaVersion(raw)).toBe(7);
  const config = parseRunConfig(
    { db: path, seed: 1, iterations: 4, regenerationInterval: 2, envsPerIteration: 2, plays: 2, hintPlays: 2, maxTurns: 2, corpus: null, backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m" } },
    "old.json",
  );
  expect(config.reward.proposerDelay).toBeGreaterThanOrEqual(2); // batch 0 is scored at the end of rollout 1
  const run = createRun(db, { config, seed: 1, status: "completed" });
  const game = (iteration: number, slot: number, valid: boolean, tokens: number, designerReward: number) => {
    const id = insertEnvironment(db, { runId: run.id, iteration, slot, attempt: 0, source: "designer", code: `class G${iteration}${slot}: pass`, valid, className: `G${iteration}${slot}`, tokens });
    upsertEnvStats(db, { environmentId: id, plays: 2, hintPlays: 2, designerReward });
    return id;
  };
  let playIndex = 0;
  const play = (environmentId: number, rollout: number, hinted: boolean, ret: number, totalTokens: number) => {
    const id = insertEpisodeWithTurns(db, { runId: run.id, environmentId, hinted, playIndex: playIndex++, return: ret, totalTokens }, [{ rawReply: "x", reward: ret, terminated: true, truncated: false }]);
    setEpisodeRollout(db, id, rollout);
  };
  const a = game(0, 0, true, 100, 0.8);
  game(0, 1, false, 50, 0.2);
  for (const ret of [1, 1]) play(a, 0, true, ret, 10);
  for (const ret of [1, 0]) play(a, 0, false, ret, 10);
  for (const ret of [0, 0]) play(a, 1, false, ret, 7); // the replay's plays, stored
  const c = game(2, 0, true, 30, 0.4);
  play(c, 2, true, 1, 5);
  play(c, 2, false, 1, 5); // rollout 3 replays c but stored no play (an empty replay stays empty)
  putMetrics(db, run.id, 0, { episodes: 4, tokens: 190, meanWinRate: 0.5, wallTimeMs: 1000, regeneration: 1 });
  putMetrics(db, run.id, 1, oldReplayRow(2000));
  putMetrics(db, run.id, 2, { episodes: 2, tokens: 40, meanWinRate: 1, wallTimeMs: 500, regeneration: 1 });
  putMetrics(db, run.id, 3, oldReplayRow(300));
  // A run whose stored config this version cannot read keeps its rows.
  const other = createRun(db, { config: { notAConfig: true }, status: "completed" });
  const b = insertEnvironment(db, { runId: other.id, iteration: 0, slot: 0, attempt: 0, source: "designer", code: "class B: pass", valid: true, className: "B" });
  const replayed = insertEpisodeWithTurns(db, { runId: other.id, environmentId: b, hinted: false, playIndex: 0, return: 1 }, []);
  setEpisodeRollout(db, replayed, 1);
  putMetrics(db, other.id, 1, oldReplayRow(10));
  raw.close();
  return { runId: run.id, otherRunId: other.id };
}

describe("the replay-metrics migration", () => {
  it("measures an old workspace's replay rows again from their stored plays, once, leaving the rest as stored", () => {
    const path = join(mkdtempSync(join(tmpdir(), "spade-replay-migration-")), "w.sqlite");
    const { runId, otherRunId } = writeOldWorkspace(path);
    const before = (() => {
      const raw = new BetterSqlite3(path, { readonly: true });
      const rows = raw.prepare(`SELECT run_id, iteration, name, value, json FROM metrics ORDER BY run_id, iteration, name`).all();
      raw.close();
      return rows as { run_id: number; iteration: number; name: string }[];
    })();

    const db = openDatabase(path);
    expect(readSchemaVersion(db)).toBe(schemaVersion);
    const metrics = getMetrics(db, runId);
    // By hand: rollout 1 replayed game a (designed in rollout 0): 2 unhinted plays, both lost, 7 tokens
    // each; its hinted plays (rollout 0) won both, so regret 1 - 0; the batch of rollout 0 (rewards
    // 0.8 and 0.2) is scored at its end. Wall time and the loop's own fields stay as stored.
    expect(metrics[1]!.metrics).toEqual({
      attempts: 0, validityRate: null, meanRegret: 1, meanWinRate: 0, meanHintWinRate: 1, winRateHistogram: [1, 0, 0, 0, 0, 0, 0, 0, 0, 0], designerReward: 0.5,
      noveltyRate: null, vendiScore: null, vendiPerN: null, diversity: null, episodes: 2, stepTimeouts: 0, tokens: 14, tokensPerEnv: 14, wallTimeMs: 2000, timePerEnvMs: 2000,
      regeneration: 0, designerRewardsScored: 2, designerMaskedRate: 0, learningPotentialGap: null, designerRewardScale: 1,
    });
    // The empty replay (rollout 3) scores the batch of rollout 2 (game c, reward 0.4): its stored null
    // designer reward is set, nothing else of it changes.
    expect(getMetrics(db, runId)[3]!.metrics).toEqual({ ...oldReplayRow(300), designerReward: 0.4 });
    // Rows that were right, and the run with an unreadable config: as stored.
    const after = db.prepare(`SELECT run_id, iteration, name, value, json FROM metrics ORDER BY run_id, iteration, name`).all() as { run_id: number; iteration: number; name: string }[];
    const untouched = (rows: { run_id: number; iteration: number; name: string }[]) => rows.filter((row) => !(row.run_id === runId && (row.iteration === 1 || (row.iteration === 3 && row.name === "designerReward"))));
    expect(untouched(after)).toEqual(untouched(before));
    expect(getMetrics(db, runId)[3]!.metrics.episodes).toBe(0);
    expect(getMetrics(db, otherRunId)[0]!.metrics.episodes).toBe(0);

    // Idempotent: nothing left to repair, and a second open changes nothing.
    expect(repairReplayMetrics(db)).toBe(0);
    expect(repairDesignerRewards(db)).toBe(0);
    db.close();
    const again = openDatabase(path);
    expect(again.prepare(`SELECT run_id, iteration, name, value, json FROM metrics ORDER BY run_id, iteration, name`).all()).toEqual(after);
    again.close();
  });
});
