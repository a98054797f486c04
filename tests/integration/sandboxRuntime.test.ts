import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EnvironmentCodeError, EnvironmentContractError, SandboxMemoryError, SandboxTimeoutError } from "../../main/sandbox/errors.js";
import type { SandboxEnvSession } from "../../main/sandbox/SandboxEnvSession.js";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { resourcePath } from "../../main/paths.js";
import { createTestPool } from "../support/sandboxTestPool.js";

const game = readFileSync(resourcePath("environments", "code_breaker.py"), "utf8");
const tools = readFileSync(resourcePath("environments", "warehouse_tools.py"), "utf8");

const printingEnv = `
import sys
class PrintingEnv:
    def __init__(self):
        self.reset()
    def reset(self, seed=None):
        print('{"id": 1, "ok": true, "json": "forged"}')
        sys.stdout.write("plain text on stdout\\n")
        print("to stderr", file=sys.stderr)
        return "ready", {"seed": seed}
    def step(self, action):
        print("x" * 100_000)
        return "o" * int(action), 0.0, False, False, {"t": (1, 2), "s": {3}, "f": float("inf"), "o": object}
    def solution(self):
        return "none"
`;

describe("the sandbox runtime", () => {
  let pool: SandboxPool;
  beforeAll(async () => {
    pool = await createTestPool({ stepTimeoutMs: 2_000, memoryLimitMb: 900, maxObservationChars: 1_000, maxPrintChars: 2_000 });
  });
  afterAll(async () => {
    await pool?.dispose();
  });

  it("runs a multi-turn game: reset, steps, hint and solution", async () => {
    const session = await pool.open(game);
    try {
      expect(session.className).toBe("CodeBreakerEnv");
      expect(session.kind).toBe("text");
      const first = await session.reset(7);
      expect(first.observation).toContain("4 different digits");
      const secret = /\\boxed\{(\d+)\}/.exec(await session.solution())?.[1];
      const wrong = await session.step("\\boxed{9}");
      expect(wrong).toMatchObject({ reward: 0, terminated: false, truncated: false, info: { valid: false } });
      const right = await session.step(`\\boxed{${secret}}`);
      expect(right).toMatchObject({ reward: 1, terminated: true, truncated: false, info: { bulls: 4 } });
      expect(await session.hint()).toContain("disjoint sets of digits");
    } finally {
      await session.close();
    }
  });

  it("runs a tool-use environment through the provided ToolUseBaseEnv", async () => {
    const session = await pool.open(tools);
    try {
      expect(session.kind).toBe("tool");
      expect(session.tools?.map((tool) => tool.function.name)).toEqual(["get_price", "get_stock", "list_products"]);
      expect(session.tools?.[1]?.function.parameters).toEqual({ type: "object", properties: { product: { type: "string" } }, required: ["product"] });
      await session.reset(3);
      const listed = await session.step('<tool_call>{"name": "list_products", "arguments": {"category": "garden"}}</tool_call>');
      expect(listed).toMatchObject({ reward: 0, terminated: false, info: { tool: "list_products" } });
      expect(listed.observation.split(", ")).toHaveLength(3);
      expect(await session.step("I think it is 12")).toMatchObject({ reward: -0.1, terminated: false, info: { error: "format" } });
      expect(await session.step("<answer>-1</answer>")).toMatchObject({ reward: 0, terminated: true });
      await session.reset(3);
      const answer = /<answer>(.*)<\/answer>/.exec(await session.solution())?.[1];
      expect(await session.step(`<answer>${answer}</answer>`)).toMatchObject({ reward: 1, terminated: true });
    } finally {
      await session.close();
    }
  });

  it("captures and caps printed output without it reaching the protocol, and caps observations", async () => {
    const session = (await pool.open(printingEnv)) as SandboxEnvSession;
    try {
      const reset = await session.reset(5);
      expect(reset).toEqual({ observation: "ready", info: { seed: 5 } });
      expect(session.printed()).toContain('"json": "forged"');
      expect(session.printed()).toContain("plain text on stdout");
      expect(session.printed()).toContain("to stderr");
      const step = await session.step("5000");
      expect(step.observation).toBe(`${"o".repeat(1000)}\n[observation truncated: 5000 characters exceed the 1000 character limit]`);
      // Converted by the harness by exact type; other objects become their type's name (no __repr__ of theirs runs).
      expect(step.info).toEqual({ t: [1, 2], s: [3], f: "inf", o: "<type object>" });
      expect(session.printed().length).toBeLessThanOrEqual(2_000);
    } finally {
      await session.close();
    }
  });

  it("reports Python exceptions with the traceback and the line in the environment", async () => {
    const code = "class BadEnv:\n    def __init__(self):\n        self.reset()\n    def reset(self, seed=None):\n        return 'go', {}\n    def step(self, action):\n        return {}['missing']\n";
    const session = await pool.open(code);
    try {
      const error = await session.step("x").catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(EnvironmentCodeError);
      expect((error as EnvironmentCodeError).line).toBe(7);
      expect((error as EnvironmentCodeError).exception).toBe("KeyError: 'missing'");
      expect((error as EnvironmentCodeError).traceback).toContain('File "environment.py", line 7, in step');
      expect((error as EnvironmentCodeError).traceback).not.toContain("spade_sandbox");
      expect(await session.reset(1)).toEqual({ observation: "go", info: {} });
    } finally {
      await session.close();
    }
  });

  it("rejects a wrong return shape with a contract error that names it", async () => {
    const code = "class ShapeEnv:\n    def reset(self, seed=None):\n        return 'only the observation'\n";
    const session = await pool.open(code);
    try {
      const error = await session.reset(1).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(EnvironmentContractError);
      expect((error as Error).message).toBe("reset(seed=1) must return a tuple (observation: str, info: dict), got a str");
    } finally {
      await session.close();
    }
  });

  it("kills a step that overruns its deadline, replaces the sandbox and carries on", async () => {
    const looping = "class LoopEnv:\n    def reset(self, seed=None):\n        return 'go', {}\n    def step(self, action):\n        while True:\n            pass\n";
    const replacedBefore = pool.stats().processesReplaced;
    const session = await pool.open(looping);
    await session.reset(1);
    const error = await session.step("x").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SandboxTimeoutError);
    expect((error as Error).message).toContain("timeout");
    // the step's own limit (the pool's stepTimeoutMs) ended it: the loop never returns by itself
    expect((error as SandboxTimeoutError).timeoutMs).toBe(2_000);
    await expect(session.step("again")).rejects.toThrow("the session ended earlier");
    await session.close();
    const next = await pool.open(game);
    expect(await next.reset(1)).toMatchObject({ info: { turn: 0 } });
    await next.close();
    expect(pool.stats().processesReplaced).toBe(replacedBefore + 1);
  });

  it("kills a sandbox that goes over its memory limit", async () => {
    const bomb = readFileSync(new URL("../fixtures/environments/broken/memory_bomb.py", import.meta.url), "utf8");
    // Its own pool: a limit a little above a started sandbox (about 250 MiB) and a deadline long enough for a loaded machine.
    const small = await createTestPool({ stepTimeoutMs: 60_000, memoryLimitMb: 450 });
    try {
      const session = await small.open(bomb);
      await session.reset(1);
      const error = await session.step("x").catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SandboxMemoryError);
      expect((error as Error).message).toContain("memory");
      await session.close();
      const next = await small.open(game);
      await next.close();
    } finally {
      await small.dispose();
    }
  });

  it("gives other code a never-used process and the same code its own process back, restored", async () => {
    const variant = `${game}\n# a variant no earlier test opened\n`;
    // Room for both environments' processes and the warm one, so none has to give way.
    const roomy = await createTestPool({ size: 1, capacity: 4 });
    const before = roomy.stats();
    let after: ReturnType<SandboxPool["stats"]>;
    try {
      for (const code of [variant, variant, tools, variant]) {
        const session = await roomy.open(code);
        await session.reset(1);
        await session.close();
      }
      after = roomy.stats();
    } finally {
      await roomy.dispose();
    }
    expect(after.reusedInterpreters - before.reusedInterpreters).toBe(2);
    expect(after.freshInterpreters - before.freshInterpreters).toBe(2);
    expect(after.playResetP50Ms).not.toBeNull();
  });
});

describe("determinism", () => {
  it("gives byte-identical observations, rewards and info across processes", async () => {
    const actions = ["\\boxed{0123}", "\\boxed{4567}", "\\boxed{8901}", "\\boxed{2345}", "\\boxed{12}"];
    const transcripts: string[] = [];
    for (let run = 0; run < 2; run++) {
      const pool = await createTestPool();
      try {
        const session = await pool.open(game.replace("import re", "import re\nimport random as _r\n_r.random()"));
        const steps = [await session.reset(11)];
        for (const action of actions) steps.push(await session.step(action));
        await session.close();
        transcripts.push(JSON.stringify(steps));
      } finally {
        await pool.dispose();
      }
    }
    expect(transcripts[1]).toBe(transcripts[0]);
    expect(transcripts[0]).toContain("bulls");
  });
});
