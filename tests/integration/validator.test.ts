import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resourcePath } from "../../main/paths.js";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { CHECKS, EXTRA_CHECKS, validateEnvironment } from "../../main/validator/validateEnvironment.js";
import { createTestPool } from "../support/sandboxTestPool.js";

const broken = (name: string) => readFileSync(new URL(`../fixtures/environments/broken/${name}.py`, import.meta.url), "utf8");

// The broken fixtures that break the reference's rule: the check that must fail, words its message
// must contain, and the line. Invalid with or without validator.strict.
const EXPECTED: Array<[fixture: string, check: string, words: string[], line?: number]> = [
  ["syntax_error", "code_executes", ["does not compile", "SyntaxError"], 2],
  ["no_env_class", "single_env_class", ["no class whose name ends in 'Env'"]],
  ["constructor_error", "constructs", ["ConstructorErrorEnv() raised TypeError"], 7],
  ["wrong_tuple", "step_probes", ["must return a 5-tuple", "got a tuple of length 4"]],
  ["step_exception", "step_probes", ["step() raised ZeroDivisionError: division by zero"], 11],
  ["nan_reward", "step_probes", ["reward is nan", "finite"]],
  ["infinite_loop", "step_probes", ["timeout"]],
  // The memory limit or, on a loaded machine, the deadline comes first.
  ["memory_bomb", "step_probes", []],
];

// The broken fixtures that fail only one of this project's extra checks: valid with a stored
// warning by default (the reference's rule), invalid at that check under validator.strict.
const EXTRA: Array<[fixture: string, check: string, words: string[]]> = [
  ["nondeterministic", "reset_deterministic", ["reset(seed=42) twice gave different observations"]],
  ["reward_out_of_range", "reward_range", ["reward of 5", "[-1, 1]"]],
  ["huge_output", "observation_size", ["1000000 characters", "limit"]],
  ["no_solution", "solution", ["no solution() method"]],
];

const hostile = (name: string) => readFileSync(new URL(`../fixtures/environments/hostile/${name}.py`, import.meta.url), "utf8");

describe("validateEnvironment", () => {
  let pool: SandboxPool;
  beforeAll(async () => {
    pool = await createTestPool({ stepTimeoutMs: 3_000, memoryLimitMb: 600 });
  });
  afterAll(async () => {
    await pool?.dispose();
  });

  it.each(readdirSync(resourcePath("environments")).filter((file) => file.endsWith(".py")))("accepts the example environment %s", async (file) => {
    const report = await validateEnvironment(pool, readFileSync(resourcePath("environments", file), "utf8"));
    expect(report.error).toBeNull();
    expect(report.valid).toBe(true);
    const expected = CHECKS.filter((name) => name !== "tool_schemas" || file.includes("tools"));
    expect(report.checks.map((check) => check.name)).toEqual(expected);
    expect(report.checks.every((check) => check.ok)).toBe(true);
    expect(report.className).toMatch(/Env$/);
  });

  it.each(EXPECTED)("rejects %s at %s", async (fixture, check, words, line) => {
    for (const strict of [false, true]) {
      const report = await validateEnvironment(pool, broken(fixture), { strict });
      expect(report.valid).toBe(false);
      const failed = report.checks.at(-1);
      expect(failed?.name).toBe(check);
      expect(failed?.ok).toBe(false);
      expect(failed?.warning).toBeUndefined();
      expect(report.checks.slice(0, -1).every((earlier) => earlier.ok)).toBe(true);
      expect(report.error).toBe(failed?.detail);
      for (const word of words) expect(report.error).toContain(word);
      if (line !== undefined) expect(failed?.line).toBe(line);
    }
  });

  it.each(EXTRA)("accepts %s with a warning at %s, and rejects it there under validator.strict", async (fixture, check, words) => {
    const report = await validateEnvironment(pool, broken(fixture));
    expect(report.valid).toBe(true);
    expect(report.error).toBeNull();
    const warned = report.checks.find((entry) => entry.name === check);
    expect(warned).toMatchObject({ ok: false, warning: true });
    for (const word of words) expect(warned?.detail).toContain(word);
    // Every check of the reference's rule passed; the extra checks after the warning still ran.
    expect(report.checks.filter((entry) => !EXTRA_CHECKS.has(entry.name)).every((entry) => entry.ok)).toBe(true);
    expect(report.checks.at(-1)?.name).toBe("deterministic");

    const strict = await validateEnvironment(pool, broken(fixture), { strict: true });
    expect(strict.valid).toBe(false);
    expect(strict.checks.at(-1)).toMatchObject({ name: check, ok: false });
    expect(strict.checks.at(-1)?.warning).toBeUndefined();
    expect(strict.checks.slice(0, -1).every((earlier) => earlier.ok)).toBe(true);
    for (const word of words) expect(strict.error).toContain(word);
  });

  it("runs a game that uses the reference's injected names (deque, math, Counter) without importing them", async () => {
    const code = `class QueueEnv:
    def reset(self, seed=None):
        self.queue = deque([1, 2, 3])
        return f"Pop as \\\\boxed{{n}}: {math.floor(2.5)} {Counter('aab')['a']}", {}
    def step(self, action):
        return str(self.queue.popleft() if self.queue else 0), 0.0, not self.queue, False, {}
    def solution(self):
        return "\\\\boxed{1}"
`;
    const report = await validateEnvironment(pool, code);
    expect(report.error).toBeNull();
  });

  it("refuses a game that imports a module the sandbox cannot provide, naming the module", async () => {
    const report = await validateEnvironment(pool, hostile("numpy_game"));
    expect(report.valid).toBe(false);
    expect(report.checks.at(-1)?.name).toBe("code_executes");
    expect(report.error).toBe('module "numpy" is not available in the sandbox (standard library only)');
  });

  it("warns about an environment that recognises the fixed probe actions and breaks on any other (invalid under validator.strict)", async () => {
    const report = await validateEnvironment(pool, hostile("probe_detector"));
    expect(report.valid).toBe(true);
    expect(report.checks.find((check) => check.name === "step_probes")?.ok).toBe(true);
    const warned = report.checks.find((check) => check.name === "random_probes");
    expect(warned).toMatchObject({ ok: false, warning: true });
    expect(warned?.detail).toContain("ValueError");
    const strict = await validateEnvironment(pool, hostile("probe_detector"), { strict: true });
    expect(strict.valid).toBe(false);
    expect(strict.checks.at(-1)?.name).toBe("random_probes");
    expect(strict.error).toContain("ValueError");
  });

  it("makes os.urandom, SystemRandom, secrets, time and the wall clock deterministic from the seed", async () => {
    const seeded = await validateEnvironment(pool, hostile("urandom_game"));
    expect(seeded.error).toBeNull();
    expect(seeded.checks.at(-1)).toMatchObject({ name: "deterministic", ok: true });
    // datetime.now() reads the sandbox's virtual clock: the same in every play with the same seed.
    const clock = await validateEnvironment(pool, hostile("wall_clock_game"));
    expect(clock.error).toBeNull();
    expect(clock.checks.at(-1)).toMatchObject({ name: "deterministic", ok: true });
  });

  it("refuses lying objects in the 5-tuple: a float subclass reward, a str subclass observation", async () => {
    const report = await validateEnvironment(pool, hostile("lying_values"));
    expect(report.valid).toBe(false);
    expect(report.error).toMatch(/reward must be an int or a float, got BigReward|observation must be a str/);
  });

  it("stops at the overall deadline and says timeout", async () => {
    const report = await validateEnvironment(pool, broken("infinite_loop"), { timeoutMs: 1_000 });
    expect(report.valid).toBe(false);
    expect(report.error).toContain("timeout");
    // the call that hung was given what was left of the 1 s overall deadline, not the pool's 3 s step limit
    const limitMs = Number(/no answer within (\d+) ms/.exec(report.error ?? "")?.[1]);
    expect(limitMs).toBeGreaterThan(0);
    expect(limitMs).toBeLessThanOrEqual(1_000);
  });
});
