// The validator cannot be fooled: besides the public seeds 42 and 123 it checks secret seeds drawn
// at every validation, and replays every trajectory in a fresh process.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { validateEnvironment } from "../../main/validator/validateEnvironment.js";
import { createTestPool } from "../support/sandboxTestPool.js";

const publicSeedsOnly = readFileSync(fileURLToPath(new URL("../fixtures/environments/hostile/public_seeds_only.py", import.meta.url)), "utf8");

let pool: SandboxPool;
beforeAll(async () => {
  // Recycling off: validation's replay gets a newly started process (with recycling, a recycled one; see sandboxRecycle).
  pool = await createTestPool({ size: 1, recycleProcesses: false });
});
afterAll(async () => {
  await pool?.dispose();
});

describe("validation seeds", () => {
  it("a game that works only on the public seeds fails the secret-seed check (a warning under the reference's rule, invalid under validator.strict), and the report does not name the secret seed", async () => {
    const secret = /^playing the probe trajectory of a secret seed failed: reset\(\) raised RuntimeError: not a public seed/;
    const report = await validateEnvironment(pool, publicSeedsOnly);
    expect(report.valid).toBe(true);
    expect(report.checks.find((check) => check.name === "deterministic")).toMatchObject({ ok: false, warning: true, detail: expect.stringMatching(secret) });
    const strict = await validateEnvironment(pool, publicSeedsOnly, { strict: true });
    expect(strict.valid).toBe(false);
    expect(strict.error).toMatch(secret);
  }, 120_000);

  it("the replay of every seed runs in a process of its own, even in a pool of one", async () => {
    const before = pool.stats().processesStarted;
    const report = await validateEnvironment(pool, publicSeedsOnly.replace("if seed not in (None, 0, 42, 123):", "if False:"), { secretSeeds: [7, 99] });
    expect(report.valid).toBe(true);
    expect(report.checks.at(-1)).toMatchObject({ name: "deterministic", detail: "seeds 42, 123 and 2 secret seeds give the same trajectories in a fresh process" });
    expect(pool.stats().processesStarted - before).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
