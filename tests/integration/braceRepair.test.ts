import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import type * as ChildProcess from "node:child_process";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BraceRepairError, repairFStringBraces } from "../../main/sandbox/repairFStringBraces.js";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { validateEnvironment } from "../../main/validator/validateEnvironment.js";
import { createTestPool } from "../support/sandboxTestPool.js";

// The reference's f-string brace repair runs in the sandbox's confined processes, never in a
// host interpreter: every command this test file starts is recorded, and a python3 that leaves a
// mark when run comes first on PATH.

const spawned = vi.hoisted(() => [] as string[]);
vi.mock("node:child_process", async (importOriginal) => {
  const original = await importOriginal<typeof ChildProcess>();
  const record =
    <T extends (...args: never[]) => unknown>(fn: T) =>
    (...args: Parameters<T>) => {
      spawned.push(String(args[0]));
      return fn(...args);
    };
  return { ...original, spawn: record(original.spawn), spawnSync: record(original.spawnSync), execFile: record(original.execFile), execFileSync: record(original.execFileSync), exec: record(original.exec), execSync: record(original.execSync) };
});

const game = (name: string, line: string) => `
class ${name}Env:
    def reset(self, seed=None):
        self.turns = 0
        return ${line}, dict()
    def step(self, action):
        self.turns += 1
        won = "\\\\boxed{go}" in action
        return "again", float(won), won or self.turns >= 3, False, {}
    def solution(self):
        return "\\\\boxed{go}"
`;

const tripwireDir = mkdtempSync(join(tmpdir(), "spade-no-python-"));
const mark = join(tripwireDir, "python-was-run");
const savedPath = process.env.PATH;

describe("the f-string brace repair in the sandbox", () => {
  let pool: SandboxPool;
  beforeAll(async () => {
    for (const name of ["python3", "python"]) writeFileSync(join(tripwireDir, name), `#!/bin/sh\ntouch '${mark}'\nexit 1\n`, { mode: 0o755 });
    process.env.PATH = `${tripwireDir}${delimiter}${savedPath ?? ""}`;
    pool = await createTestPool({ size: 1, prewarm: 1, capacity: 2 });
  });
  afterAll(async () => {
    await pool?.dispose();
    process.env.PATH = savedPath;
    rmSync(tripwireDir, { recursive: true, force: true });
  });

  it("doubles the braces of fields that are not expressions on the line that does not parse, and the result validates", async () => {
    const code = game("Boxed", 'f"Answer with \\\\boxed{<action>} within {3 - self.turns} turns"');
    const repaired = await repairFStringBraces(pool, code);
    expect(repaired).toBe(code.replace("\\\\boxed{<action>}", "\\\\boxed{{<action>}}"));
    expect(repaired).toContain("{3 - self.turns}");
    expect((await validateEnvironment(pool, code)).valid).toBe(false);
    expect((await validateEnvironment(pool, repaired)).valid).toBe(true);
  });

  it("leaves code that parses exactly as it is", async () => {
    const code = `${game("Plain", '"Answer with \\\\\\\\boxed{go}"')}\nTABLE = {'k': {1: 2}}\nMSG = f"{TABLE['k']} {{literal}}"\n`;
    const failures: BraceRepairError[] = [];
    expect(await repairFStringBraces(pool, code, { onFailure: (error) => failures.push(error) })).toBe(code);
    expect(failures).toEqual([]);
  });

  it("rewrites at most 20 lines, one per round, as the reference does", async () => {
    const broken = Array.from({ length: 22 }, (_, index) => `line_${index} = f"\\\\boxed{<a${index}>}"`);
    const repaired = await repairFStringBraces(pool, `${broken.join("\n")}\n`);
    const lines = repaired.split("\n");
    expect(lines.filter((line) => line.includes("{{<a")).length).toBe(20);
    expect(lines[19]).toBe('line_19 = f"\\\\boxed{{<a19>}}"');
    expect(lines[20]).toBe('line_20 = f"\\\\boxed{<a20>}"');
  });

  it("returns the code unchanged when the parse does not end within the deadline, and says so", async () => {
    const code = `${"x = 1\n".repeat(300_000)}${Array.from({ length: 22 }, (_, index) => `y${index} = f"\\\\boxed{<b>}"`).join("\n")}\n`;
    const failures: BraceRepairError[] = [];
    expect(await repairFStringBraces(pool, code, { timeoutMs: 20, onFailure: (error) => failures.push(error) })).toBe(code);
    expect(failures.map((error) => error.reason)).toEqual(["timeout"]);
    expect(failures[0]).toBeInstanceOf(BraceRepairError);
  });

  it("returns the code unchanged when the code crashes the parser or overflows its stack", async () => {
    const failures: BraceRepairError[] = [];
    const onFailure = (error: BraceRepairError) => failures.push(error);
    const crashing = `x = ${"not ".repeat(50_000)}1\nmsg = f"\\\\boxed{<c>}"\n`;
    const deep = `x = ${"-".repeat(100_000)}1\nmsg = f"\\\\boxed{<c>}"\n`;
    expect(await repairFStringBraces(pool, crashing, { onFailure })).toBe(crashing);
    expect(await repairFStringBraces(pool, deep, { onFailure })).toBe(deep);
    expect(failures).toHaveLength(2);
    for (const failure of failures) expect(["crashed", "parser", "memory"]).toContain(failure.reason);
    // The pool goes on repairing after the crashes.
    expect(await repairFStringBraces(pool, 'm = f"\\\\boxed{<d>}"\n')).toBe('m = f"\\\\boxed{{<d>}}"\n');
  });

  it("started no host python: only sandbox processes", () => {
    expect(existsSync(mark)).toBe(false);
    expect(spawned.length).toBeGreaterThan(0);
    for (const command of spawned) expect(command).not.toMatch(/python/i);
  });
});

describe("a repair and the validation of its result", () => {
  let pool: SandboxPool;
  beforeAll(async () => {
    // Recycling off: the replay's process is a new start (with recycling, the repaired process is recycled for it; see sandboxRecycle).
    pool = await createTestPool({ size: 1, prewarm: 0, capacity: 1, recycleProcesses: false });
  });
  afterAll(async () => {
    await pool?.dispose();
  });

  it("share one never-used process: the repaired code's validation plays in the process that repaired it (its determinism replay gets one of its own)", async () => {
    const code = game("Shared", 'f"Reply \\\\boxed{<move>}"');
    const repaired = await repairFStringBraces(pool, code);
    expect(repaired).not.toBe(code);
    expect(pool.stats().processesStarted).toBe(1);
    const report = await validateEnvironment(pool, repaired);
    expect(report.valid).toBe(true);
    expect(pool.stats().processesStarted).toBe(2);
    expect(pool.stats().processesReplaced).toBe(0);
  });
});
