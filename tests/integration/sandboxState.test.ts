// Same process state every play, determinism by construction: a game that reads or changes state
// outside Python's heap (umask, the file system's inode counter) or draws from any unseeded entropy
// or clock source sees exactly the same in every play with the same seed, in a reused process and
// in a fresh one; the same code validated twice in one pool gets the same verdict.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { playEnvironment } from "../../main/sandbox/playEnvironment.js";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { validateEnvironment } from "../../main/validator/validateEnvironment.js";
import { createTestPool } from "../support/sandboxTestPool.js";

const fixture = (name: string) => readFileSync(fileURLToPath(new URL(`../fixtures/environments/state/${name}`, import.meta.url)), "utf8");
const processState = fixture("process_state_game.py");
const entropy = fixture("entropy_game.py");

let reused: SandboxPool;
let fresh: SandboxPool;

beforeAll(async () => {
  reused = await createTestPool({ size: 1 });
  fresh = await createTestPool({ size: 1 });
});
afterAll(async () => {
  await reused?.dispose();
  await fresh?.dispose();
});

/** Plays `code` with `seed` four times in one process (fresh, first reuse, from the base twice). */
async function playsInOneProcess(pool: SandboxPool, code: string, seed: number): Promise<string[]> {
  const reports: string[] = [];
  for (let play = 0; play < 4; play++) {
    const report = await playEnvironment(pool, code, { seed, actions: ["\\boxed{1}"] });
    expect(report.error).toBeNull();
    reports.push(JSON.stringify(report));
  }
  return reports;
}

describe("a play starts from exactly the same process state", () => {
  it("umask, inode counter and working directory are the same at every play, reused or fresh", async () => {
    const plays = await playsInOneProcess(reused, processState, 3);
    expect(new Set(plays).size).toBe(1);
    expect(plays[0]).toContain("umask at open 0o22");
    const other = await playEnvironment(fresh, processState, { seed: 3, actions: ["\\boxed{1}"] });
    expect(JSON.stringify(other)).toBe(plays[0]);
  }, 120_000);

  it("the same code validated twice in one pool gets the same verdict and details", async () => {
    const first = await validateEnvironment(reused, processState);
    const second = await validateEnvironment(reused, processState);
    expect(first.error).toBeNull();
    expect(second.checks).toEqual(first.checks);
  }, 120_000);
});

describe("determinism by construction", () => {
  it("every unseeded entropy and clock source repeats exactly for the same seed, and follows the seed", async () => {
    const plays = await playsInOneProcess(reused, entropy, 5);
    expect(new Set(plays).size).toBe(1);
    const other = await playEnvironment(fresh, entropy, { seed: 5, actions: ["\\boxed{1}"] });
    expect(JSON.stringify(other)).toBe(plays[0]);
    const reseeded = await playEnvironment(fresh, entropy, { seed: 6, actions: ["\\boxed{1}"] });
    expect(reseeded.reset.observation.slice(2, 18)).not.toBe(other.reset.observation.slice(2, 18)); // os.urandom follows the seed
  }, 120_000);
});
