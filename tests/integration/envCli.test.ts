import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

// The `spade env` contracts, run against the BUILT command line as other tools use it.

const root = fileURLToPath(new URL("../..", import.meta.url));
const cli = join(root, "out/engine/main/cli/spade.js");
const game = join(root, "resources/environments/code_breaker.py");
const puzzle = join(root, "resources/environments/congruence_puzzle.py");
const broken = (name: string) => join(root, `tests/fixtures/environments/broken/${name}.py`);
const env = { ...process.env, XDG_CACHE_HOME: join(tmpdir(), "spade-workbench-test-cli-cache") };

function spade(...args: string[]): { code: number; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [cli, ...args], { env, encoding: "utf8", timeout: 120_000 });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

describe("spade env validate (built CLI)", () => {
  beforeAll(() => {
    if (!existsSync(cli)) execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.engine.json")], { cwd: root, stdio: "ignore" });
  });

  it("prints the report as one JSON object and exits 0 for a valid environment", () => {
    const { code, stdout } = spade("env", "validate", game, "--json");
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(Object.keys(report)).toEqual(["valid", "className", "checks", "error", "durationMs", "solutionPlay"]);
    expect(report.solutionPlay).toMatchObject({ solves: expect.any(Boolean), detail: expect.any(String) });
    expect(report).toMatchObject({ valid: true, className: "CodeBreakerEnv", error: null });
    expect(typeof report.durationMs).toBe("number");
    for (const check of report.checks) expect(Object.keys(check)).toEqual(["name", "ok", "detail"]);
  });

  it("exits 1 with the first failing check's message as error", () => {
    const { code, stdout } = spade("env", "validate", broken("wrong_tuple"), "--json");
    expect(code).toBe(1);
    const report = JSON.parse(stdout);
    expect(report.valid).toBe(false);
    expect(report.error).toContain("must return a 5-tuple");
    expect(report.checks.at(-1)).toMatchObject({ name: "step_probes", ok: false, detail: report.error });
  });

  it("prints a readable report without --json", () => {
    const { code, stdout } = spade("env", "validate", broken("syntax_error"));
    expect(code).toBe(1);
    expect(stdout).toContain("INVALID");
    expect(stdout).toMatch(/FAIL\s+code_executes\s+the code does not compile: SyntaxError: expected ':' \[line 2\]/);
  });

  it("shows a failed extra check as a WARN line and exits 0 (the reference's rule); --strict makes it a FAIL and exits 1", () => {
    const lenient = spade("env", "validate", broken("reward_out_of_range"));
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toMatch(/: VALID \(\w+Env\), 1 warning in \d+ ms/);
    expect(lenient.stdout).toMatch(/WARN\s+reward_range\s+step\(.*\) gave a reward of 5; rewards should stay in \[-1, 1\]/);
    expect(lenient.stdout).not.toContain("FAIL");
    const json = JSON.parse(spade("env", "validate", broken("reward_out_of_range"), "--json").stdout);
    expect(json.checks.find((check: { name: string }) => check.name === "reward_range")).toMatchObject({ ok: false, warning: true });
    const strict = spade("env", "validate", broken("reward_out_of_range"), "--strict");
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain("INVALID");
    expect(strict.stdout).toMatch(/FAIL\s+reward_range/);
  });

  it("exits 2 for an unreadable file or bad arguments", () => {
    const missing = spade("env", "validate", join(root, "no/such/file.py"), "--json");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cannot read");
  });
});

describe("spade env play (built CLI)", () => {
  it("plays to termination, follows the episode rule and prints identical JSON on two runs", () => {
    const first = JSON.parse(spade("env", "play", puzzle, "--seed", "3", "--json").stdout);
    const conditions = [...(first.reset.observation as string).matchAll(/remainder (\d+) when divided by (\d+)/g)].map((match) => [Number(match[1]), Number(match[2])]);
    let answer = 1;
    while (!conditions.every(([remainder, modulus]) => answer % (modulus as number) === remainder)) answer++;
    const args = ["env", "play", puzzle, "--seed", "3", "--action", "\\boxed{0}", "--action", `\\boxed{${answer}}`, "--action", "\\boxed{1}", "--json"];
    const runs = [spade(...args), spade(...args)];
    expect(runs.map((run) => run.code)).toEqual([0, 0]);
    expect(runs[1]?.stdout).toBe(runs[0]?.stdout);
    const report = JSON.parse(runs[0]?.stdout ?? "");
    expect(Object.keys(report)).toEqual(["className", "seed", "reset", "steps", "return", "error"]);
    expect(report).toMatchObject({ className: "CongruencePuzzleEnv", seed: 3, return: 1, error: null });
    expect(report.reset).toEqual(first.reset);
    expect(report.steps.map((step: { terminated: boolean }) => step.terminated)).toEqual([false, true]);
    expect(Object.keys(report.steps[0])).toEqual(["action", "observation", "reward", "terminated", "truncated", "info"]);
  });

  it("--hint appends the environment's hint to the first observation", () => {
    const plain = JSON.parse(spade("env", "play", puzzle, "--seed", "3", "--json").stdout);
    const hinted = JSON.parse(spade("env", "play", puzzle, "--seed", "3", "--hint", "--json").stdout);
    expect(hinted.reset.observation).toBe(
      `${plain.reset.observation}\n\nHINT: Take the largest modulus first, list numbers with its remainder, and keep only those that fit the next condition.`,
    );
  });

  it("exits 1 with error set when the environment raises", () => {
    const { code, stdout } = spade("env", "play", broken("step_exception"), "--seed", "1", "--action", "\\boxed{1}", "--json");
    expect(code).toBe(1);
    const report = JSON.parse(stdout);
    expect(report.error).toBe("step() raised ZeroDivisionError: division by zero (line 11 of the environment)");
    expect(report).toMatchObject({ className: "StepExceptionEnv", steps: [], return: 0 });
  });

  it("prints a transcript without --json and exits 2 without --seed", () => {
    const { code, stdout } = spade("env", "play", game, "--seed", "1", "--action", "\\boxed{0123}");
    expect(code).toBe(0);
    expect(stdout).toContain("step 1: \\boxed{0123}");
    expect(stdout).toContain("return: 0");
    const missingSeed = spade("env", "play", game);
    expect(missingSeed.code, missingSeed.stderr).toBe(2);
    expect(missingSeed.stderr).toContain("--seed <n> is required");
  });
});

describe("spade env session (built CLI)", () => {
  it("builds the class as a run's plays do: its own max_turns capped at --max-turns", () => {
    const dir = mkdtempSync(join(tmpdir(), "spade-env-session-"));
    const file = join(dir, "long_game.py");
    writeFileSync(
      file,
      [
        "class LongGameEnv:",
        "    def __init__(self, max_turns=100):",
        "        self.max_turns = max_turns",
        "    def reset(self, seed=None):",
        "        self.turn = 0",
        '        return f"limit {self.max_turns}", {}',
        "    def step(self, action):",
        "        self.turn += 1",
        '        return f"turn {self.turn} of {self.max_turns}", 0.0, False, self.turn >= self.max_turns, {}',
        "",
      ].join("\n"),
    );
    const lines = [{ op: "reset", seed: 1 }, { op: "step", reply: "\\boxed{1}" }, { op: "step", reply: "\\boxed{2}" }];
    const result = spawnSync(process.execPath, [cli, "env", "session", file, "--max-turns", "2"], { env, encoding: "utf8", timeout: 120_000, input: lines.map((line) => JSON.stringify(line)).join("\n") + "\n" });
    expect(result.status).toBe(0);
    const answers = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(answers.map((answer) => answer.observation)).toEqual(["limit 2", "turn 1 of 2", "turn 2 of 2"]);
    expect(answers[2]).toMatchObject({ truncated: true });
  });
});
