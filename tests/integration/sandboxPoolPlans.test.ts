// A pool that does not churn (issue 25): a process stays bound to its game while plays of that game
// are still to come, across the rollouts that replay it; other games' idle processes give way first;
// idle processes are released after the idle time where one is set. Real sandbox processes.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { ScriptedBackend, requestRole } from "../../main/bench/ScriptedBackend.js";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import type { LoopEvent } from "../../main/selfplay/LoopEvent.js";
import { SelfPlayLoop } from "../../main/selfplay/SelfPlayLoop.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { countEnvironments, getEnvironment, listEnvironments } from "../../main/store/queries/environments.js";
import { createRun } from "../../main/store/queries/runs.js";
import { createTestPool } from "../support/sandboxTestPool.js";
import { envCode, selfPlayReply } from "../support/selfPlayScript.js";

const game = (name: string) => `
class ${name}Env:
    def reset(self, seed=None):
        return "${name}", {}
    def step(self, action):
        return "done", 1.0, True, False, {}
`;

const pidOf = (session: unknown) => (session as { process: { pid: number } }).process.pid;

const pools: SandboxPool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.dispose()));
});

async function play(pool: SandboxPool, code: string, planned = false): Promise<number> {
  const session = await pool.open(code, { planned });
  const pid = pidOf(session);
  await session.reset(1);
  await session.close();
  return pid;
}

describe("the sandbox pool with announced plays", () => {
  it("makes room with another game's idle process, never one whose game has plays to come", async () => {
    // Recycling off: the room is made by ending a process (with it, the same choice recycles one; see sandboxRecycle).
    const pool = await createTestPool({ concurrency: 1, prewarm: 0, capacity: 2, recycleProcesses: false });
    pools.push(pool);
    pool.planPlays(game("A"), 3);
    const pidA = await play(pool, game("A"), true);
    expect(pool.playsToCome(game("A"))).toBe(2);
    await play(pool, game("B")); // idle after A: the process idle longest is A's
    await play(pool, game("C")); // no room left: B's process gives way, not A's
    expect(pool.stats().processesEvicted).toBe(1);
    const started = pool.stats().processesStarted;
    expect(await play(pool, game("A"), true)).toBe(pidA);
    expect(pool.stats().processesStarted).toBe(started);
    // Once A has no plays to come, its process gives way like any other.
    pool.planPlays(game("A"), 0);
    await play(pool, game("D"));
    await play(pool, game("E"));
    expect(pool.stats().processesEvicted).toBe(3);
  });

  it("lets a second play of a game wait for the game's busy process when sessions end sooner than processes start", async () => {
    const pool = await createTestPool({ concurrency: 2, prewarm: 0, capacity: 4 });
    pools.push(pool);
    const code = game("G");
    for (let index = 0; index < 3; index++) await play(pool, code); // sessions of a few ms; a start takes far longer
    const started = pool.stats().processesStarted;
    const first = await pool.open(code);
    const second = pool.open(code);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await first.close();
    const next = await second;
    expect(pidOf(next)).toBe(pidOf(first));
    await next.close();
    // Nothing was started for it, nor is being started.
    expect(pool.stats().processesStarted + pool.stats().starting).toBe(started);
  });

  it("ends idle and never-used processes after idleReleaseMs and starts again at the next open", async () => {
    const pool = await createTestPool({ concurrency: 1, prewarm: 1, idleReleaseMs: 400 });
    pools.push(pool);
    await play(pool, game("F"));
    const deadline = Date.now() + 20_000;
    while (pool.stats().live + pool.stats().starting > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pool.stats().live).toBe(0);
    expect(pool.stats().processesReleasedIdle).toBeGreaterThanOrEqual(1);
    // Released, not replaced: nothing starts again until an open comes.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(pool.stats().live).toBe(0);
    await play(pool, game("F"));
    expect(pool.stats().live).toBeGreaterThanOrEqual(1);
  });
});

describe("the loop and the pool across rollouts", () => {
  it("plays a replay rollout of three games in the processes of the regeneration rollout, after a training round's pause: no new process", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spade-pool-plans-"));
    // One process per game fits, and a warm set is wanted: the warm set must not take a game's process.
    const pool = await createTestPool({ concurrency: 3, prewarm: 1, capacity: 3 });
    pools.push(pool);
    let games = 0;
    // Every answer takes 50 ms, as a server's would: plays of one game overlap.
    const backend = new ScriptedBackend(async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (requestRole(request) !== "designer") return selfPlayReply(request);
      const name = `MagicWord${games++}Env`;
      return `Here it is.\n\`\`\`python\n${envCode.magic.replaceAll("MagicWordEnv", name)}\`\`\`\n`;
    }, 1);
    const config = parseRunConfig(
      {
        db: join(dir, "plans.sqlite"), seed: 3, iterations: 2, regenerationInterval: 2, envsPerIteration: 3, plays: 4, hintPlays: 2, maxTurns: 2,
        backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "scripted" }, corpus: null, training: null,
      },
      "plans.json",
    );
    const db = openDatabase(config.db);
    const run = createRun(db, { config, seed: config.seed });
    // The training round between the rollouts: a pause in which the pool's processes sit idle.
    // During it, each game's plays of the replay rollout are announced to the pool (so its processes stay bound).
    const toComeInPause: number[][] = [];
    const training = {
      afterIteration: async (iteration: number) => {
        toComeInPause.push(listEnvironments(db, { runId: run.id, valid: true }).map((env) => pool.playsToCome(getEnvironment(db, env.id)!.code!)));
        if (iteration === 0) await new Promise((resolve) => setTimeout(resolve, 2500));
        return "done" as const;
      },
    };
    const startedAt: number[] = [];
    const onEvent = (event: LoopEvent) => {
      if (event.type === "iterationStarted" || event.type === "iterationCompleted") startedAt.push(pool.stats().processesStarted);
    };
    expect(await new SelfPlayLoop(run.id, config, { db, backend, pool, corpus: null, onEvent, playConcurrency: 2, training }).run()).toBe("completed");
    expect(countEnvironments(db, { runId: run.id, valid: true })).toBe(3);
    // After rollout 0: 4 plays of each game to come in rollout 1; after rollout 1 (the batch's last): none.
    expect(toComeInPause).toEqual([[4, 4, 4], [0, 0, 0]]);
    db.close();
    // [rollout 0 start, rollout 0 end, rollout 1 start, rollout 1 end]: the replay started nothing.
    expect(startedAt).toHaveLength(4);
    expect(startedAt[3], `processes started by the end of each rollout: ${startedAt.join(", ")}`).toBe(startedAt[2]);
    expect(pool.stats().reusedInterpreters).toBeGreaterThan(0);
  }, 240_000);
});
