// Info costs the game no tokens, so its storage is budgeted per episode: a game that returns the
// largest info allowed on every turn has the rest of its info dropped, each drop saying so.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScriptedBackend } from "../../main/bench/ScriptedBackend.js";
import { EPISODE_INFO_BUDGET_CHARS, playEpisode } from "../../main/rollout/playEpisode.js";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { createTestPool } from "../support/sandboxTestPool.js";

const hoarder = `
class HoarderEnv:
    def reset(self, seed=None):
        self.turn = 0
        return "Say anything in \\\\boxed{}.", {}

    def step(self, action):
        self.turn += 1
        return "more", 0.0, self.turn >= 8, False, {"blob": "x" * 60000}

    def solution(self):
        return "\\\\boxed{a}"
`;

let pool: SandboxPool;
beforeAll(async () => {
  pool = await createTestPool({ size: 1 });
});
afterAll(async () => {
  await pool?.dispose();
});

describe("the storage budget of an episode", () => {
  it("keeps info up to the budget and replaces the rest with a note that it was cut", async () => {
    const session = await pool.open(hoarder);
    const episode = await playEpisode({ session, backend: new ScriptedBackend(() => "\\\\boxed{a}", 1), seed: 1, maxTurns: 8 });
    await session.close();
    expect(episode.turns).toHaveLength(8);
    const stored = episode.turns.reduce((sum, turn) => sum + JSON.stringify(turn.info).length, 0);
    expect(stored).toBeLessThanOrEqual(EPISODE_INFO_BUDGET_CHARS + 8 * 200);
    expect(episode.turns[0]!.info).toHaveProperty("blob");
    expect(episode.turns.at(-1)!.info).toEqual({ infoCut: expect.stringMatching(/^info of 60011 characters dropped: the episode's info budget of 262144 characters is spent$/) });
  }, 120_000);
});
