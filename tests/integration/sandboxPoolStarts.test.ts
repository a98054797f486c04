// Starts while plays run (issue 36): a process start costs as much CPU as dozens of plays, so a pool
// starts its working set when it is created, refills its warm set only while no play holds a
// process, and while plays run starts one process at a time, for an open that needs one. Real
// sandbox processes; every verdict counts starts, none reads a clock.
import { afterAll, describe, expect, it } from "vitest";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { createTestPool } from "../support/sandboxTestPool.js";

const game = (name: string) => `
class ${name}Env:
    def reset(self, seed=None):
        return "${name}", {}
    def step(self, action):
        return "done", 1.0, True, False, {}
`;

const pools: SandboxPool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.dispose()));
});

describe("the sandbox pool's starts", () => {
  it("starts initialProcesses when created, and plays that many games without another start", async () => {
    const pool = await createTestPool({ initialProcesses: 3, prewarm: 0, concurrency: 3, capacity: 4, cores: 2 });
    pools.push(pool);
    expect(pool.stats().processesStarted).toBe(3);
    expect(pool.stats().live).toBe(3);
    const sessions = await Promise.all(["A", "B", "C"].map((name) => pool.open(game(name))));
    for (const session of sessions) await session.reset(1);
    expect(pool.stats().processesStarted + pool.stats().starting).toBe(3);
    for (const session of sessions) await session.close();
  });

  it("refills the warm set only once no play holds a process", async () => {
    const pool = await createTestPool({ prewarm: 1, concurrency: 2, capacity: 4, cores: 2 });
    pools.push(pool);
    expect(pool.stats().processesStarted).toBe(1);
    const session = await pool.open(game("A")); // takes the warm process
    await session.reset(1);
    expect(pool.stats().processesStarted + pool.stats().starting).toBe(1);
    await session.close();
    // Nothing plays now: the warm set is refilled.
    await pool.prewarm(1);
    expect(pool.stats().processesStarted).toBe(2);
  });

  it("starts one process at a time while a play runs, however many opens wait", async () => {
    const pool = await createTestPool({ prewarm: 0, concurrency: 4, capacity: 6, cores: 4 });
    pools.push(pool);
    const first = await pool.open(game("A"));
    const waiting = ["B", "C", "D"].map((name) => pool.open(game(name)));
    expect(pool.stats().starting).toBe(1);
    const sessions = await Promise.all(waiting);
    expect(pool.stats().processesStarted).toBe(4);
    for (const session of [first, ...sessions]) await session.close();
  });
});
