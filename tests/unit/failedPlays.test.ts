// Plays the infrastructure failed are not accumulated by the delayed designer reward, as the
// reference drops a FAILED trajectory before `_ACCUMULATED_GAME_REWARDS` and the hint means
// (spade/slime/spade_rollout.py, spade/core/orchestrator.py `play_games_async`): no mean, win
// rate, plateau or memory win rate counts them. A `step()` exception that scored -1 is a normal
// play. The time-out test counts only the regeneration rollout's hangs (`_step_timeout_games` is
// cleared at every collect and stamped on that rollout's designer samples).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { scoreRegeneration } from "../../main/selfplay/scoreRegeneration.js";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { getEnvStats } from "../../main/store/queries/envStats.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { insertEpisodeWithTurns } from "../../main/store/queries/episodes.js";
import { getMemoryEntry } from "../../main/store/queries/memory.js";
import { createRun } from "../../main/store/queries/runs.js";
import { getDesignerAdvantage, setEpisodeRollout } from "../../main/store/queries/schedule.js";

let dir: string;
let db: WritableDb;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-failed-plays-"));
  db = openDatabase(join(dir, "ws.sqlite"));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const config = (reward: Record<string, unknown> = {}) =>
  parseRunConfig(
    { db: "w.sqlite", backend: { kind: "openai", baseUrl: "http://127.0.0.1:1/v1", model: "m" }, corpus: null, iterations: 2, envsPerIteration: 1, plays: 4, regenerationInterval: 2, reward: { proposerDelay: 2, ...reward } },
    "run.json",
  );

interface Play {
  rollout: number;
  hinted?: boolean;
  ret: number;
  error?: string;
  timedOut?: boolean;
  stepError?: boolean;
}

function seed(plays: Play[]) {
  const runId = createRun(db, { seed: 1 }).id;
  const env = insertEnvironment(db, { runId, iteration: 0, slot: 0, attempt: 0, source: "designer", skill: "S", code: "class E: pass", valid: true });
  plays.forEach((play, playIndex) => {
    const turn = { messages: [{ role: "user" as const, content: "x" }], reward: play.ret, terminated: true, info: play.stepError ? { stepError: true } : {} };
    const id = insertEpisodeWithTurns(db, { runId, environmentId: env, hinted: play.hinted ?? false, playIndex, return: play.ret, error: play.error ?? null, timedOut: play.timedOut ?? false }, [turn]);
    setEpisodeRollout(db, id, play.rollout);
  });
  return { runId, env };
}

describe("failed plays and the delayed designer reward", () => {
  const plays: Play[] = [
    { rollout: 0, ret: 1 },
    { rollout: 0, ret: 0 },
    { rollout: 0, ret: -1, error: "Error: ZeroDivisionError", stepError: true }, // scored: a normal play
    { rollout: 0, ret: 0, error: "backend error: connection reset" }, // failed: dropped
    { rollout: 0, ret: 0, error: "step timeout after 30000 ms", timedOut: true }, // a hang of the regeneration rollout
    { rollout: 1, ret: 1 },
    { rollout: 1, ret: 0, error: "step timeout after 30000 ms", timedOut: true }, // a later hang: dropped, not a time-out of the test
    { rollout: 0, hinted: true, ret: 1 },
    { rollout: 0, hinted: true, ret: 1 },
    { rollout: 0, hinted: true, ret: 0, error: "sandbox crashed" },
  ];

  it("counts in no mean, win rate or plateau; a scored step() exception does", () => {
    const { runId, env } = seed(plays);
    scoreRegeneration(db, runId, 0, config(), () => true);
    // Unhinted over the window: 1, 0, -1 (rollout 0) and 1 (rollout 1); hinted: 1, 1.
    expect(getEnvStats(db, env)).toMatchObject({ plays: 4, hintPlays: 2, meanReturn: 0.25, hintMeanReturn: 1, winRate: 0.5, hintWinRate: 1, stepTimeouts: 1 });
    // Regret = 1 - mean(1, 0, -1) = 1 -> clipped 1; the window mean 0.25 -> plateau 1 - 0.15 / 0.25 = 0.4.
    expect(getDesignerAdvantage(db, env)!.designerReward).toBeCloseTo(0.4 * 1 + 0.6 * 0.4, 12);
    // Memory: the regeneration rollout's win rate over its three plays that did not fail.
    expect(getMemoryEntry(db, env)!.winRate).toBeCloseTo(1 / 3, 12);
  });

  it("the regret_based time-out penalty comes only from the regeneration rollout's hangs", () => {
    const hungLater = plays.filter((play) => !(play.timedOut && play.rollout === 0));
    const later = seed(hungLater);
    scoreRegeneration(db, later.runId, 0, config({ kind: "regret" }), () => true);
    expect(getEnvStats(db, later.env)).toMatchObject({ stepTimeouts: 0 });
    // hinted mean 1 - window mean (1 + 0 - 1 + 1) / 4 = 0.75: no penalty.
    expect(getDesignerAdvantage(db, later.env)!.designerReward).toBeCloseTo(0.75, 12);
    const hungFirst = seed(plays);
    scoreRegeneration(db, hungFirst.runId, 0, config({ kind: "regret" }), () => true);
    expect(getDesignerAdvantage(db, hungFirst.env)!.designerReward).toBe(-0.5);
  });
});
