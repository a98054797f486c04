// A small workspace with known plays and designer attempts, for the export and training tests.
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { upsertEnvStats } from "../../main/store/queries/envStats.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { insertEpisodeWithTurns, type NewTurn } from "../../main/store/queries/episodes.js";
import { createRun } from "../../main/store/queries/runs.js";

export const systemPrompt = "You are the agent. Answer with \\boxed{<action>}.";

/** A play of `turns` turns; the last one terminates with `ret` as its reward. */
export function playTurns(observation: string, ret: number, turns = 2): NewTurn[] {
  return Array.from({ length: turns }, (_, i) => ({
    messages: i === 0 ? [{ role: "system" as const, content: systemPrompt }, { role: "user" as const, content: observation }] : null,
    rawReply: `move ${i} \\boxed{${i}}`,
    reasoning: i === 0 ? "think first" : null,
    action: String(i),
    observation: i === turns - 1 ? "done" : `obs after ${i}`,
    reward: i === turns - 1 ? ret : 0,
    terminated: i === turns - 1,
    tokenIds: i === 0 ? [5, 6, 7] : null,
    tokenProbs: i === 0 ? [0.5, 0.25, 0.125] : null,
  }));
}

interface PlaySpec {
  ret: number;
  hinted?: boolean;
  canary?: boolean;
  error?: string;
}

function addPlays(db: WritableDb, runId: number, environmentId: number, plays: PlaySpec[]): void {
  const indexes = new Map<string, number>();
  for (const play of plays) {
    const key = `${play.hinted ?? false}/${play.canary ?? false}`;
    const playIndex = indexes.get(key) ?? 0;
    indexes.set(key, playIndex + 1);
    const observation = `task of env ${environmentId}${play.hinted ? "\n\nHINT: try 1" : ""}`;
    insertEpisodeWithTurns(
      db,
      { runId, environmentId, hinted: play.hinted ?? false, canary: play.canary ?? false, playIndex, seed: 100 + playIndex, return: play.ret, error: play.error ?? null, firstObservation: observation },
      playTurns(observation, play.ret),
    );
  }
}

/**
 * Run 1 holds:
 * - env A (Planning): canary 0; unhinted 1, 0, 0, 1; hinted 1, 1; one errored play.
 * - env B (Logic): unhinted 1, 1, 1 (zero variance).
 * - env C (Logic): one unhinted play 0.5 (too small a group).
 * Designer attempts: Planning invalid (reward 0) then its repair A (0.8); Logic B (0.5); Logic C unscored.
 */
export function seedTrainingWorkspace(db: WritableDb): { runId: number; envA: number; envB: number; envC: number; invalid: number } {
  const run = createRun(db, { name: "fixture", seed: 1 });
  const prompt = (skill: string) => [{ role: "user" as const, content: `Design a ${skill} environment.` }];
  const invalid = insertEnvironment(db, {
    runId: run.id, iteration: 0, slot: 0, attempt: 0, source: "designer", skill: "Planning", prompt: prompt("Planning"), rawReply: "no code", code: null, valid: false,
  });
  upsertEnvStats(db, { environmentId: invalid, plays: 0, hintPlays: 0, designerReward: 0, rewardKind: "blend" });
  const envA = insertEnvironment(db, {
    runId: run.id, iteration: 0, slot: 0, attempt: 1, parentId: invalid, source: "repair", skill: "Planning", prompt: prompt("Planning fixed"), rawReply: "```python\nclass AEnv: pass\n```", code: "class AEnv: pass", className: "AEnv", valid: true,
  });
  upsertEnvStats(db, { environmentId: envA, plays: 4, hintPlays: 2, designerReward: 0.8, rewardKind: "blend" });
  addPlays(db, run.id, envA, [{ ret: 0, canary: true }, { ret: 1 }, { ret: 0 }, { ret: 0 }, { ret: 1 }, { ret: 1, hinted: true }, { ret: 1, hinted: true }, { ret: 0, error: "step() failed on turn 1: boom" }]);
  const envB = insertEnvironment(db, {
    runId: run.id, iteration: 0, slot: 1, attempt: 0, source: "designer", skill: "Logic", prompt: prompt("Logic"), rawReply: "```python\nclass BEnv: pass\n```", code: "class BEnv: pass", className: "BEnv", valid: true,
  });
  upsertEnvStats(db, { environmentId: envB, plays: 3, hintPlays: 0, designerReward: 0.5, rewardKind: "blend" });
  addPlays(db, run.id, envB, [{ ret: 1 }, { ret: 1 }, { ret: 1 }]);
  const envC = insertEnvironment(db, {
    runId: run.id, iteration: 0, slot: 2, attempt: 0, source: "designer", skill: "Logic", prompt: prompt("Logic 2"), rawReply: "```python\nclass CEnv: pass\n```", code: "class CEnv: pass", className: "CEnv", valid: true,
  });
  addPlays(db, run.id, envC, [{ ret: 0.5 }]);
  return { runId: run.id, envA, envB, envC, invalid };
}
