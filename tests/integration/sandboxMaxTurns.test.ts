// A game's own max_turns as the reference's training plays set it (spade/core/orchestrator.py
// builds each play with make_synthetic_env(..., max_turns=config.max_turns,
// respect_game_max_turns=True); spade/core/envs/synthetic_game_env.py _load_game_from_code): the
// class built without arguments, with max_turns=<the run's> only when that raises a TypeError, then
// its max_turns capped at the run's (a positive int) or set to it (anything else). A game whose
// max_turns cannot be read or set ends that open with its error; the pool goes on. Both recycling modes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EnvironmentCodeError } from "../../main/sandbox/errors.js";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { validateEnvironment } from "../../main/validator/validateEnvironment.js";
import { SANDBOX_PROCESS_MODES } from "../support/sandboxProcessModes.js";
import { createTestPool } from "../support/sandboxTestPool.js";

/** A game that truncates by its own max_turns and says what it is at reset. */
function countingGame(name: string, init: string, extra = ""): string {
  return `class ${name}Env:
${init}
${extra}
    def reset(self, seed=None):
        self.turn = 0
        return f"limit {self.max_turns!r}", {}

    def step(self, action):
        self.turn += 1
        return f"turn {self.turn}", 0.0, False, self.turn >= self.max_turns, {}
`;
}

const CAPPED = countingGame("Capped", "    def __init__(self, max_turns=100, **kwargs):\n        self.max_turns = max_turns\n        self.built_with = kwargs");
const SHORT = countingGame("Short", "    def __init__(self, max_turns=2):\n        self.max_turns = max_turns");
const REQUIRED = countingGame("Required", "    def __init__(self, max_turns):\n        self.max_turns = max_turns");
const UNSET = countingGame("Unset", "    def __init__(self):\n        self.max_turns = None");
const GETTER_RAISES = countingGame("GetterRaises", "    @property\n    def max_turns(self):\n        raise RuntimeError('no turn limit for you')");
const SETTER_RAISES = countingGame("SetterRaises", "    def __init__(self):\n        self._limit = 50", "    @property\n    def max_turns(self):\n        return self._limit\n\n    @max_turns.setter\n    def max_turns(self, value):\n        raise ValueError('read-only limit')");
// Not an int, read-only: the reference's set to the run's limit fails, as here.
const NOT_INT_READ_ONLY = countingGame("NotIntReadOnly", "    @property\n    def max_turns(self):\n        return 'many'");
// A value whose comparisons and conversions all raise: never compared, replaced by the run's limit.
const HOSTILE_VALUE = countingGame(
  "HostileValue",
  "    def __init__(self):\n        class Limit:\n            def __gt__(self, other): raise RuntimeError('compared')\n            def __lt__(self, other): raise RuntimeError('compared')\n            def __le__(self, other): raise RuntimeError('compared')\n            def __index__(self): raise RuntimeError('converted')\n            def __int__(self): raise RuntimeError('converted')\n            def __bool__(self): raise RuntimeError('tested')\n            def __repr__(self): return 'Limit()'\n        self.max_turns = Limit()",
);
// An int subclass whose comparisons lie: compared by int's own methods, so 500 is capped at the run's.
const LYING_INT = countingGame(
  "LyingInt",
  "    def __init__(self):\n        class Liar(int):\n            def __gt__(self, other): return False\n            def __le__(self, other): return True\n            def __lt__(self, other): return True\n        self.max_turns = Liar(500)",
);

/** The first observation and the turn at which the game truncated (null: not within 10 turns). */
async function play(pool: SandboxPool, code: string, maxTurns: number | null): Promise<{ observation: string; truncatedAt: number | null }> {
  const session = await pool.open(code, { maxTurns });
  try {
    const { observation } = await session.reset(1);
    for (let turn = 1; turn <= 10; turn++) {
      const step = await session.step("\\boxed{1}");
      if (step.truncated) return { observation, truncatedAt: turn };
    }
    return { observation, truncatedAt: null };
  } finally {
    await session.close();
  }
}

async function openError(pool: SandboxPool, code: string, maxTurns: number): Promise<EnvironmentCodeError> {
  const error = await pool.open(code, { maxTurns }).then(
    async (session) => {
      await session.close();
      return null;
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(EnvironmentCodeError);
  return error as EnvironmentCodeError;
}

describe.each(SANDBOX_PROCESS_MODES)("a game's max_turns and the run's maxTurns ($mode)", ({ options }) => {
  let pool: SandboxPool;
  beforeAll(async () => {
    pool = await createTestPool({ ...options, size: 1 });
  });
  afterAll(async () => {
    await pool?.dispose();
  });

  it("a game's larger max_turns is capped at the run's, a smaller one kept, and without a run limit the class's own stands", async () => {
    // Twice each: the second open starts from the child's post-open base, which holds the capped game.
    for (let again = 0; again < 2; again++) expect(await play(pool, CAPPED, 3)).toEqual({ observation: "limit 3", truncatedAt: 3 });
    expect(await play(pool, SHORT, 25)).toEqual({ observation: "limit 2", truncatedAt: 2 });
    // Another limit for the same code in the same pool is refused before anything runs (its processes hold the capped game).
    await expect(pool.open(CAPPED, { maxTurns: 4 })).rejects.toThrow(/opened in this pool with maxTurns 3, not 4/);
    await expect(pool.open(CAPPED)).rejects.toThrow(/with maxTurns 3, not none/);
    expect(await play(pool, CAPPED.replace("class CappedEnv", "class UncappedEnv"), null)).toEqual({ observation: "limit 100", truncatedAt: null });
  }, 120_000);

  it("built without arguments first (not with max_turns=), and a class that requires max_turns gets the run's", async () => {
    const session = await pool.open(CAPPED.replace('return f"limit {self.max_turns!r}", {}', 'return f"kwargs {self.built_with!r}", {}'), { maxTurns: 7 });
    try {
      expect((await session.reset(1)).observation).toBe("kwargs {}");
    } finally {
      await session.close();
    }
    for (let again = 0; again < 2; again++) expect(await play(pool, REQUIRED, 4)).toEqual({ observation: "limit 4", truncatedAt: 4 });
    const withoutLimit = await pool.open(REQUIRED.replace("class RequiredEnv", "class RequiredAloneEnv")).then(() => null, (caught: unknown) => caught);
    expect(withoutLimit).toBeInstanceOf(EnvironmentCodeError);
    expect(String(withoutLimit)).toMatch(/TypeError.*max_turns/);
  }, 120_000);

  it("a max_turns that is not a positive int is set to the run's, without running its methods", async () => {
    expect(await play(pool, UNSET, 5)).toEqual({ observation: "limit 5", truncatedAt: 5 });
    expect(await play(pool, HOSTILE_VALUE, 6)).toEqual({ observation: "limit 6", truncatedAt: 6 });
    expect(await play(pool, LYING_INT, 4)).toEqual({ observation: "limit 4", truncatedAt: 4 });
  }, 120_000);

  it("a max_turns that raises when read or set, or cannot be set, is that open's error, and the pool plays on", async () => {
    const getter = await openError(pool, GETTER_RAISES, 5);
    expect(getter.message).toContain("no turn limit for you");
    expect(getter.stage).toBe("construct");
    expect((await openError(pool, SETTER_RAISES, 5)).message).toContain("read-only limit");
    expect((await openError(pool, NOT_INT_READ_ONLY, 5)).message).toMatch(/AttributeError/);
    expect(await play(pool, CAPPED, 3)).toEqual({ observation: "limit 3", truncatedAt: 3 });
  }, 120_000);

  it("validation builds and plays the class as the run does: a class that requires max_turns is valid", async () => {
    const report = await validateEnvironment(pool, REQUIRED.replace("class RequiredEnv", "class RequiredValidatedEnv"), { maxTurns: 25 });
    expect(report.error).toBeNull();
    expect(report.valid).toBe(true);
    expect(report.checks.find((check) => check.name === "constructs")?.ok).toBe(true);
  }, 120_000);
});
