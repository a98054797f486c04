import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { readRssBytes } from "../../main/sandbox/processMemory.js";
import { createTestPool } from "../support/sandboxTestPool.js";

// An idle sandbox gives back the memory a play grew it by, and the copy of the state plays start
// from is never charged to the environment: a play that grows the interpreter by ~600 MB is
// followed by a process at its base size, and the next plays of the same game stay within a
// 1 GiB limit they would pass alone.

const GROWING_GAME = `
class GrowingEnv:
    def reset(self, seed=None):
        self.turns = 0
        return "grow", {}
    def step(self, action):
        self.turns += 1
        self.blob = bytearray(600 * 1024 * 1024)
        self.blob[::4096] = b"x" * len(self.blob[::4096])
        return f"grew {len(self.blob)}", 0.0, True, False, {}
`;

const pidOf = (session: unknown) => (session as { process: { pid: number; pids: number[] } }).process;
const MiB = 1024 * 1024;

describe("sandbox memory after a play that grew the interpreter", () => {
  let pool: SandboxPool;
  beforeAll(async () => {
    pool = await createTestPool({ memoryLimitMb: 1024, prewarm: 1 });
  });
  afterAll(async () => {
    await pool?.dispose();
  });

  it("recycles the grown process and plays the game again and again within the limit", async () => {
    const grown: number[] = [];
    for (let play = 0; play < 3; play++) {
      const session = await pool.open(GROWING_GAME);
      const process = pidOf(session);
      await session.reset(play);
      const step = await session.step("go");
      expect(step.observation).toBe(`grew ${600 * MiB}`);
      const rss = process.pids.map((pid) => readRssBytes(pid) ?? 0).reduce((a, b) => a + b, 0);
      grown.push(rss / MiB);
      await session.close();
      // The process that grew is not kept idle at its peak: it is ended (and replaced by a fresh one).
      await expect.poll(() => process.pids.every((pid) => readRssBytes(pid) === null), { timeout: 5000 }).toBe(true);
    }
    // Each play really grew the process by about 600 MB (a fresh one is a few hundred MiB).
    for (const rss of grown) expect(rss).toBeGreaterThan(600);
    // The pool learns of the last process's end from its exit event, which can come just after its pids are gone.
    await expect.poll(() => pool.stats().processesReplaced, { timeout: 5000 }).toBeGreaterThanOrEqual(3);
  });
});

const BIG_AT_OPEN = `
blob = bytearray(600 * 1024 * 1024)
blob[::4096] = b"x" * len(blob[::4096])
class BigEnv:
    def reset(self, seed=None):
        return f"big {len(blob)}", {}
    def step(self, action):
        return "done", 1.0, True, False, {}
`;

describe("sandbox memory when the open itself grows the interpreter", () => {
  let pool: SandboxPool;
  beforeAll(async () => {
    pool = await createTestPool({ memoryLimitMb: 1024, prewarm: 1 });
  });
  afterAll(async () => {
    await pool?.dispose();
  });

  it("never charges the copy of the opened state to the environment", async () => {
    for (let play = 0; play < 3; play++) {
      const session = await pool.open(BIG_AT_OPEN);
      expect((await session.reset(play)).observation).toBe(`big ${600 * MiB}`);
      expect((await session.step("go")).reward).toBe(1);
      await session.close();
    }
    expect(pool.stats().opensFromBase).toBe(0);
  });
});
