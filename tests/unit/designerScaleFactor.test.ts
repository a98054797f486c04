// The designer advantage's "auto" scale counted as the reference counts it: on the step that trains
// the batch (rollout r + delay, its actor samples upsampled to the global batch minus that
// rollout's new designer samples), not on the rollout that scored it (spade_rollout.py,
// compute_env_reward_scale; orchestrator.py upsample_trajectories).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { insertEpisodeWithTurns } from "../../main/store/queries/episodes.js";
import { createRun } from "../../main/store/queries/runs.js";
import { setEpisodeRollout } from "../../main/store/queries/schedule.js";
import { designerScaleFactor } from "../../main/training/designerScaleFactor.js";

let dir: string;
let db: WritableDb;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-scale-"));
  db = openDatabase(join(dir, "ws.sqlite"));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const config = (extra: Record<string, unknown> = {}) =>
  parseRunConfig({ db: "w.sqlite", backend: { kind: "openai", baseUrl: "http://127.0.0.1:1/v1", model: "m" }, corpus: null, iterations: 8, envsPerIteration: 4, actorBatch: 12, regenerationInterval: 4, ...extra }, "run.json");

function game(runId: number, iteration: number, slot: number, plays: Record<number, number>, failed = 0): void {
  const env = insertEnvironment(db, { runId, iteration, slot, attempt: 0, source: "designer", skill: "S", code: "class E: pass", valid: true });
  let index = 0;
  for (const [rollout, count] of Object.entries(plays)) {
    for (let i = 0; i < count; i++, index++) {
      const error = i < failed && Number(rollout) === iteration + 3 ? "backend error" : null;
      const id = insertEpisodeWithTurns(db, { runId, environmentId: env, hinted: false, playIndex: index, return: 0, error }, [{ messages: [{ role: "user", content: "x" }], reward: 0, terminated: true }]);
      setEpisodeRollout(db, id, Number(rollout));
    }
  }
}

describe("designerScaleFactor", () => {
  it("is the training step's scale over the scoring rollout's", () => {
    const runId = createRun(db, { seed: 1 }).id;
    // Regeneration 0: 3 valid games, 4 plays each in rollouts 0-3; one play of rollout 3 failed: 11 agent samples there.
    for (const slot of [0, 1, 2]) game(runId, 0, slot, { 0: 4, 1: 4, 2: 4, 3: 4 }, slot === 0 ? 1 : 0);
    // Regeneration 4: 2 valid games, 6 plays each in rollout 4: 12 agent samples.
    for (const slot of [0, 1]) game(runId, 4, slot, { 4: 6 });
    // Stored: 11 / 3 x 4 = 14.67; trained at rollout 4: 12 / 3 x 4 = 16.
    expect(designerScaleFactor(db, runId, 0, 4, config())).toBeCloseTo(16 / (44 / 3), 12);
    // A fixed scale is the scale: nothing to redo.
    expect(designerScaleFactor(db, runId, 0, 4, config({ reward: { scale: 32 } }))).toBe(1);
  });

  it("counts the training step's agent samples upsampled to the batch minus its new designer samples", () => {
    const runId = createRun(db, { seed: 1 }).id;
    for (const slot of [0, 1, 2]) game(runId, 0, slot, { 0: 4, 1: 4, 2: 4, 3: 4 });
    // Rollout 4: one valid game with 6 plays: upsampled to 12 - 1 = 11 actor samples.
    game(runId, 4, 0, { 4: 6 });
    expect(designerScaleFactor(db, runId, 0, 4, config())).toBeCloseTo((11 / 3) * 4 / ((12 / 3) * 4), 12);
    // With a fixed plays count nothing is upsampled: 6 samples.
    expect(designerScaleFactor(db, runId, 0, 4, config({ plays: 4 }))).toBeCloseTo((6 / 3) * 4 / ((12 / 3) * 4), 12);
  });
});
