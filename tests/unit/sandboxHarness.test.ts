import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { resourcePath } from "../../main/paths.js";
import { capText, TEXT_CAPS } from "../../main/sandbox/capText.js";

// The harness's own checks, run in the machine's CPython (fast): exact types for everything an
// environment returns, refusals of introspection, deterministic entropy. The same harness runs in
// Pyodide in the sandbox (tests/integration/sandboxHostile.test.ts, validator.test.ts).

const driver = fileURLToPath(new URL("../fixtures/sandbox/harnessDriver.py", import.meta.url));
const guardDownAttacks = readFileSync(fileURLToPath(new URL("../fixtures/sandbox/guard_down_attacks.py", import.meta.url)), "utf8");

interface Answer {
  ok: boolean;
  result?: Record<string, unknown>;
  error?: { kind: string; exception: string };
}

function session(code: string): Answer[] {
  return lines(code).map((line) => JSON.parse(line) as Answer);
}

/** The harness's answers as encoded, one line each (what would cross the pipe). */
function lines(code: string): string[] {
  const result = spawnSync("python3", [driver, resourcePath("python"), JSON.stringify(TEXT_CAPS)], { input: code, encoding: "utf8", timeout: 30_000, maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`the harness driver failed: ${result.stderr}`);
  return result.stdout.trim().split("\n");
}

const env = (step: string, reset = 'return "start", {}') => `
import gc, os, random, sys, time
class ProbeEnv:
    def reset(self, seed=None):
        ${reset}
    def step(self, action):
        ${step}
`;

describe("the sandbox harness", () => {
  it("refuses a reward that is a float subclass lying through __float__, naming its type", () => {
    const answers = session(`class Big(float):\n    def __float__(self):\n        return 0.25\n${env("return 'o', Big(1e308), False, False, {}")}`);
    expect(answers[2]?.ok).toBe(false);
    expect(answers[2]?.error?.exception).toBe("step(): reward must be an int or a float, got Big");
  });

  it("refuses NaN and infinite rewards as contract errors instead of sending null", () => {
    for (const reward of ["float('nan')", "float('-inf')"]) {
      const answers = session(env(`return 'o', ${reward}, False, False, {}`));
      expect(answers[2]?.error).toMatchObject({ kind: "contract" });
      expect(answers[2]?.error?.exception).toMatch(/reward is (nan|-inf); rewards must be finite numbers/);
    }
  });

  it("refuses a str subclass observation and a bool-like flag by exact type", () => {
    const answers = session(`class S(str):\n    def __len__(self):\n        return 1\n${env("return S('x' * 10), 0.0, 1, False, {}")}`);
    expect(answers[2]?.error?.exception).toBe("step(): observation must be a str, got S");
    const flags = session(env("return 'o', 0.0, 1, False, {}"));
    expect(flags[2]?.error?.exception).toBe("step(): terminated must be a bool, got int");
  });

  it("converts info by exact type and refuses non-string keys", () => {
    const answers = session(`class Loud:\n    def __repr__(self):\n        raise SystemExit\n${env("return 'o', 1, False, False, {'a': (1, 2), 'b': Loud(), 'c': float('inf')}")}`);
    expect(answers[2]?.result?.info).toEqual({ a: [1, 2], b: "<Loud object>", c: "inf" });
    expect(session(env("return 'o', 1, False, False, {1: 2}"))[2]?.error?.exception).toBe("step(): info keys must be str, got int");
  });

  it("refuses the garbage collector's object walk and frames while environment code runs", () => {
    expect(session(env("gc.get_objects()\n        return 'o', 0.0, False, False, {}"))[2]?.error?.exception).toContain("gc.get_objects is not allowed in the SPADE sandbox");
    expect(session(env("sys._getframe(1)\n        return 'o', 0.0, False, False, {}"))[2]?.error?.exception).toContain("sys._getframe is not allowed");
  });

  it("makes os.urandom, SystemRandom and the clock follow the episode seed", () => {
    const answers = session(env("return os.urandom(8).hex() + str(random.SystemRandom().random()) + str(time.time()), 0.0, False, False, {}"));
    expect(answers[2]?.ok).toBe(true);
    expect(answers[4]?.result?.observation).toBe(answers[2]?.result?.observation);
  });

  it("never runs environment code while it formats an error: no added audit hook, loader, property or __eq__ runs, and no frame is read", () => {
    const answers = session(guardDownAttacks);
    expect(answers[0]?.ok).toBe(true);
    expect(answers[2]?.error).toMatchObject({ kind: "code", exception: "Lying: trap" });
    expect(answers[4]?.result?.observation).toBe("[]");
  });

  it("formats an environment's traceback from raw data: its own lines, the harness's frames left out, long messages cut and said so", () => {
    const answers = session(env("raise ValueError('x' * 5000)"));
    const error = answers[2]?.error as { exception: string; traceback: string } | undefined;
    expect(error?.exception).toMatch(/^ValueError: x{2036}\n\[exception message truncated: 5012 characters exceed the 2048 character limit\]$/);
    expect(error?.traceback).toMatch(/^Traceback \(most recent call last\):\n {2}File "environment.py", line \d+, in step\n {4}raise ValueError/);
    expect(error?.traceback).not.toContain("spade_sandbox");
  });

  it("cuts hint, solution, class name, exception message and traceback to the engine's caps before encoding them, saying so as the engine does", () => {
    const name = `${"N".repeat(300)}Env`;
    const code = `class ${name}:
    def reset(self, seed=None):
        return "start", {}
    def step(self, action):
        raise ValueError("m" * 100_000)
    def hint(self):
        return "h" * 2_000_000
    def solution(self):
        return "s" * 1_000_000
`;
    const encoded = lines(code);
    // Nothing oversized crossed the pipe: every answer is far below the 2 MB hint.
    for (const line of encoded) expect(line.length).toBeLessThan(64_000);
    const answers = encoded.map((line) => JSON.parse(line) as Answer);
    expect(answers[0]?.result?.className).toBe(capText(name, TEXT_CAPS.className, "class name"));
    expect(answers[0]?.result?.className).toMatch(/\n\[class name truncated: 303 characters exceed the 128 character limit\]$/);
    expect(answers[5]?.result?.hint).toBe(capText("h".repeat(2_000_000), TEXT_CAPS.hint, "hint"));
    expect(answers[6]?.result?.solution).toBe(capText("s".repeat(1_000_000), TEXT_CAPS.solution, "solution"));
    const error = answers[2]?.error as { exception: string; traceback: string; className: string } | undefined;
    expect(error?.exception).toBe(capText(`ValueError: ${"m".repeat(100_000)}`, TEXT_CAPS.exception, "exception message"));
    expect(error?.className).toBe(answers[0]?.result?.className);
    expect(error?.traceback.length).toBeLessThanOrEqual(TEXT_CAPS.traceback + 100);
    // The engine keeps what the harness cut as it is (its own cap does not cut the note off).
    expect(capText(answers[5]?.result?.hint as string, TEXT_CAPS.hint, "hint")).toBe(answers[5]?.result?.hint);
  });

  it("names a module the sandbox cannot provide", () => {
    // (numpy may exist for this CPython; in Pyodide it does not: see validator.test.ts.)
    const answers = session(`import spade_no_such_module\n${env("return 'o', 0.0, False, False, {}")}`);
    expect(answers[0]?.error?.exception).toBe('module "spade_no_such_module" is not available in the sandbox (standard library only)');
  });
});
