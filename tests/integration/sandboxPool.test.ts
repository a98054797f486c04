import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxEnvSession } from "../../main/sandbox/SandboxEnvSession.js";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { createTestPool } from "../support/sandboxTestPool.js";

// The pool for many plays in flight: no fixed cap of two, one environment per process, plays of
// the same environment independent and reproducible.

const game = (name: string) => `
import random
class ${name}Env:
    def reset(self, seed=None):
        self.secret = random.randint(0, 10**6)
        self.moves = []
        return f"${name} {self.secret}", {}
    def step(self, action):
        self.moves.append(action)
        random.random()
        return f"{len(self.moves)} {random.randint(0, 99)}", 0.0, len(self.moves) >= 3, False, {}
    def solution(self):
        return str(self.secret)
`;

const pidOf = (session: unknown) => (session as { process: { pid: number } }).process.pid;

describe("the sandbox pool under concurrent plays", () => {
  let pool: SandboxPool;
  beforeAll(async () => {
    // Recycling off: a process that ran one environment is never handed to another (recycled processes: sandboxRecycle).
    pool = await createTestPool({ concurrency: 5, prewarm: 2, capacity: 6, recycleProcesses: false });
  });
  afterAll(async () => {
    await pool?.dispose();
  });

  it("opens five environments at once, each in a process of its own, within the capacity", async () => {
    const names = ["A", "B", "C", "D", "E"];
    const sessions = await Promise.all(names.map((name) => pool.open(game(name))));
    try {
      const observations = await Promise.all(sessions.map((session) => session.reset(3)));
      names.forEach((name, index) => expect(observations[index]?.observation.startsWith(`${name} `)).toBe(true));
      expect(new Set(sessions.map(pidOf)).size).toBe(5);
      expect(pool.stats().live).toBeLessThanOrEqual(6);
    } finally {
      await Promise.all(sessions.map((session) => session.close()));
    }
  });

  it("never hands a process that ran one environment to another", async () => {
    const first = await pool.open(game("F"));
    const pid = pidOf(first);
    await first.close();
    const other = await pool.open(game("G"));
    const otherPid = pidOf(other);
    expect(otherPid).not.toBe(pid);
    await other.close();
    // F gets its own process back (or, had it given way to the warm set, a never-used one): never G's.
    const again = await pool.open(game("F"));
    expect(pidOf(again)).not.toBe(otherPid);
    await again.close();
  });

  it("keeps plays of one environment independent and reproducible, one after another and at once", async () => {
    const code = game("H");
    async function play(session?: Awaited<ReturnType<SandboxPool["open"]>>): Promise<string> {
      const own = session ?? (await pool.open(code));
      try {
        const steps: unknown[] = [await own.reset(9)];
        for (const action of ["a", "b", "c"]) steps.push(await own.step(action));
        return JSON.stringify(steps);
      } finally {
        await own.close();
      }
    }
    const first = await play();
    const second = await play();
    expect(second).toBe(first);
    const together = await Promise.all([play(), play(), play()]);
    for (const transcript of together) expect(transcript).toBe(first);
    expect((pool.stats().playResetP50Ms ?? -1) >= 0).toBe(true);
  });

  it("starts never-used processes ahead of need with prewarm()", async () => {
    await pool.prewarm(3);
    const before = pool.stats().processesStarted;
    const session = (await pool.open(game("I"))) as SandboxEnvSession;
    expect(session.freshInterpreter).toBe(true);
    await session.close();
    expect(pool.stats().processesStarted).toBeGreaterThanOrEqual(before);
    expect(pool.stats().memoryPerProcessMb).toBeGreaterThan(0);
  });
});
