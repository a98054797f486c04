import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { envPackageFormats, type EnvPackageManifest } from "../../shared/envExport.js";
import { exportEnvironmentPackages } from "../../main/exports/packages/exportEnvironmentPackages.js";
import type { PlayReport } from "../../shared/environment.js";
import { frameFirstObservation } from "../../main/rollout/agentSystemPrompt.js";
import { extractFirstBoxedAction } from "../../main/rollout/extractAction.js";
import { nativeToolAction, parseTextToolCalls } from "../../main/rollout/toolCalls.js";

// `spade envs export --format`: every format's package, as its ecosystem would load it, plays the
// same seeded episode as `spade env play`. The ecosystems' own libraries cannot be installed here
// (no PyPI): each package is driven through a stand-in of its library's documented interface
// (tests/fixtures/exports/standins), by tests/fixtures/exports/drive_package.py.

const root = fileURLToPath(new URL("../..", import.meta.url));
const cli = join(root, "out/engine/main/cli/spade.js");
const python = "/usr/bin/python3";
const driver = join(root, "tests/fixtures/exports/drive_package.py");
const checks = join(root, "tests/fixtures/exports/library_checks.py");
const env = { ...process.env, XDG_CACHE_HOME: join(tmpdir(), "spade-workbench-test-cli-cache") };

function spade(...args: string[]): { code: number; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [cli, ...args], { env, encoding: "utf8", timeout: 120_000 });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** One bundled example, the agent's replies of one episode and the seed. */
interface Script {
  file: string;
  folder: string;
  className: string;
  kind: "text" | "tool";
  seed: number;
  replies: string[];
}

const scripts: Script[] = [
  { file: "code_breaker.py", folder: "code_breaker", className: "CodeBreakerEnv", kind: "text", seed: 7, replies: ["Let me try \\boxed{0123} first.", "Then \\boxed{4567} and maybe \\boxed{89}", "no box at all"] },
  { file: "congruence_puzzle.py", folder: "congruence_puzzle", className: "CongruencePuzzleEnv", kind: "text", seed: 3, replies: ["\\boxed{{12}}", "x = \\boxed{5}"] },
  { file: "errand_tools.py", folder: "errand_steps", className: "ErrandStepsEnv", kind: "tool", seed: 11, replies: ['<tool_call>{"name": "view_catalog", "arguments": {}}</tool_call>', "<answer>done</answer>", '<tool_call>{"name": "checkout", "arguments": {"method": "card"}}</tool_call>'] },
  { file: "story_word.py", folder: "story_word", className: "StoryWordEnv", kind: "text", seed: 5, replies: ["They played all day. \\boxed{the end}"] },
  { file: "warehouse_tools.py", folder: "warehouse_audit", className: "WarehouseAuditEnv", kind: "tool", seed: 2, replies: ['<tool_call>{"name": "list_products", "arguments": {"category": "tools"}}</tool_call>', "I think <answer>42</answer>"] },
];

/** The actions the workbench's agent loop sends `step()` for these replies (its own parsers). */
function workbenchActions(script: Script): string[] {
  if (script.kind === "text") return script.replies.map(extractFirstBoxedAction);
  return script.replies.map((reply, turn) => {
    const calls = parseTextToolCalls(reply, turn);
    return /<answer>[\s\S]*?<\/answer>/.test(reply) || calls.length === 0 ? reply : nativeToolAction(calls[0]!);
  });
}

function play(file: string, seed: number, actions: string[], hint = false): PlayReport {
  const args = ["env", "play", join(root, "resources/environments", file), "--seed", String(seed), "--json", ...actions.flatMap((action) => ["--action", action]), ...(hint ? ["--hint"] : [])];
  const result = spade(...args);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as PlayReport;
}

function drive(format: string, folder: string, target: string, seed: number, replies: string[]): Record<string, unknown> {
  const input = join(dir, `replies-${format}-${target}.json`);
  writeFileSync(input, JSON.stringify(replies));
  const result = spawnSync(python, [driver, format, folder, target, String(seed), input], { encoding: "utf8", timeout: 60_000, env: { ...process.env, SPADE_PYTHON_DIR: join(root, "resources/python") } });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

/** One check of tests/fixtures/exports/library_checks.py (issue #33), through the stand-ins. */
function check<T>(name: string, folder: string, target: string, ...args: string[]): T {
  const result = spawnSync(python, [checks, name, folder, target, ...args], { encoding: "utf8", timeout: 120_000 });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

function firstMessage(script: Script, observation: string): string {
  return script.kind === "text" ? frameFirstObservation(observation) : observation;
}

function without<T extends Record<string, unknown>>(info: T, key: string): Record<string, unknown> {
  const { [key]: _dropped, ...rest } = info;
  return rest;
}

let dir = "";
const out = (format: string) => join(dir, format);
/** The game file the game-files export wrote for a class, as its spade-games.json lists it. */
const gameFile = (className: string) => (JSON.parse(readFileSync(join(out("game-files"), "spade-games.json"), "utf8")) as { file: string; className: string }[]).find((game) => game.className === className)!.file;
const plays = new Map<string, PlayReport>();

beforeAll(() => {
  if (!existsSync(cli)) execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.engine.json")], { cwd: root, stdio: "ignore" });
  dir = mkdtempSync(join(tmpdir(), "spade-env-packages-"));
  const db = join(dir, "ws.sqlite");
  const imported = spade("envs", "import", "--db", db, "--in", join(root, "resources/environments"), "--set", "examples");
  expect(imported.code, imported.stderr).toBe(0);
  for (const format of envPackageFormats) {
    const exported = spade("envs", "export", "--db", db, "--set", "examples", "--format", format, "--out", out(format));
    expect(exported.code, exported.stderr).toBe(0);
  }
  for (const script of scripts) {
    const report = play(script.file, script.seed, workbenchActions(script));
    // Every scripted reply is played (none ends the episode early) and the environment never raised.
    expect([report.error, report.steps.length], script.file).toEqual([null, script.replies.length]);
    plays.set(script.file, report);
  }
}, 300_000);

describe("spade envs export --format (built CLI)", () => {
  it("writes a manifest naming one package per environment of the set, every file with its sha256", () => {
    for (const format of envPackageFormats) {
      const manifest = JSON.parse(readFileSync(join(out(format), "manifest.json"), "utf8")) as EnvPackageManifest;
      expect(manifest.format).toBe(format);
      expect(manifest.selection).toBe("set:examples");
      expect(manifest.packages.map((entry) => entry.className).sort()).toEqual(["CodeBreakerEnv", "CongruencePuzzleEnv", "ErrandStepsEnv", "StoryWordEnv", "WarehouseAuditEnv"]);
      for (const file of manifest.files) expect(existsSync(join(out(format), file.path)), file.path).toBe(true);
    }
  });

  it("writes the files each ecosystem expects", () => {
    const openenv = join(out("openenv"), "code_breaker");
    expect(readFileSync(join(openenv, "openenv.yaml"), "utf8")).toBe("spec_version: 1\nname: code_breaker\ntype: space\nruntime: fastapi\napp: server.app:app\nport: 8000\n");
    expect(readFileSync(join(openenv, "pyproject.toml"), "utf8")).toContain('"openenv-core[core]>=0.2.2"');
    expect(readFileSync(join(openenv, "models.py"), "utf8")).toMatch(/class CodeBreakerAction\(Action\)[\s\S]*class CodeBreakerObservation\(Observation\)/);
    expect(readFileSync(join(openenv, "server/code_breaker_environment.py"), "utf8")).toMatch(/class CodeBreakerEnvironment\(Environment\)[\s\S]*def reset\(self, seed: Optional\[int\] = None, episode_id: Optional\[str\] = None/);
    expect(readFileSync(join(openenv, "server/app.py"), "utf8")).toContain("app = create_app(\n    CodeBreakerEnvironment,");
    expect(readFileSync(join(openenv, "server/Dockerfile"), "utf8")).toContain("USER spade");
    const verifiers = join(out("verifiers"), "code_breaker");
    expect(readFileSync(join(verifiers, "pyproject.toml"), "utf8")).toContain('name = "spade-code-breaker"');
    expect(readFileSync(join(verifiers, "spade_code_breaker/environment.py"), "utf8")).toContain("return SpadeGymEnv(\n        env_cls=SpadeGymGame,");
    expect(readFileSync(join(out("gem"), "code_breaker/spade_code_breaker/__init__.py"), "utf8")).toContain('gem.register(ENV_ID, entry_point="spade_code_breaker.environment:SpadeGemEnv")');
    const codeBreaker = readFileSync(join(out("game-files"), gameFile("CodeBreakerEnv")), "utf8");
    expect(codeBreaker).toBe(`"""SPADE self-play generated game"""\n\n${readFileSync(join(root, "resources/environments/code_breaker.py"), "utf8")}`);
    for (const format of ["openenv", "verifiers", "gem"]) {
      for (const script of scripts) expect(readFileSync(join(out(format), script.folder, "README.md"), "utf8"), `${format}/${script.folder}`).toContain("**Untrusted code.**");
    }
    expect(readFileSync(join(out("game-files"), "README.md"), "utf8")).toContain("**Untrusted code.**");
  });

  it("writes Python that compiles, in every package", () => {
    for (const format of envPackageFormats) {
      const result = spawnSync(python, ["-m", "compileall", "-q", out(format)], { encoding: "utf8" });
      expect(result.status, result.stdout + result.stderr).toBe(0);
    }
  });

  it("OpenEnv: a server session plays the same episode as spade env play", () => {
    for (const script of scripts) {
      const report = plays.get(script.file)!;
      const driven = drive("openenv", out("openenv"), script.folder, script.seed, script.replies) as { reset: { observation: Record<string, unknown> }; steps: Array<{ observation: Record<string, unknown>; reward: number; done: boolean }> };
      expect(driven.reset.observation.observation).toBe(report.reset.observation);
      expect(driven.reset.observation.prompt).toBe(firstMessage(script, report.reset.observation));
      expect(driven.reset.observation.info).toEqual(report.reset.info);
      expect(driven.steps.map((step) => [step.observation.observation, step.reward, step.observation.terminated, step.observation.truncated, step.observation.info])).toEqual(report.steps.map((step) => [step.observation, step.reward, step.terminated, step.truncated, step.info]));
      expect(driven.steps.at(-1)!.observation.episode_return).toBe(report.return);
    }
  });

  it("verifiers: load_environment's GymEnv row and rollout match spade env play, the rubric scoring the SPADE return", () => {
    for (const script of scripts) {
      const report = plays.get(script.file)!;
      const driven = drive("verifiers", out("verifiers"), script.folder, script.seed, script.replies) as { question: string; steps: Array<{ reward: number; info: Record<string, unknown> }>; observations: string[]; reward: number };
      expect(driven.question).toBe(firstMessage(script, report.reset.observation));
      expect(driven.steps.map((step) => [step.reward, without(step.info, "spade_return")])).toEqual(report.steps.map((step) => [step.reward, step.info]));
      const ended = report.steps.at(-1)!.terminated || report.steps.at(-1)!.truncated;
      expect(driven.observations).toEqual(report.steps.map((step, i) => step.observation + (ended && i === report.steps.length - 1 ? "\nEpisode already ended." : "")));
      expect(driven.reward).toBe(report.return);
    }
  });

  it("GEM: gem.make of the registered id plays the same episode as spade env play", () => {
    for (const script of scripts) {
      const report = plays.get(script.file)!;
      const driven = drive("gem", out("gem"), script.folder, script.seed, script.replies) as { reset: [string, Record<string, unknown>]; steps: Array<[string, number, boolean, boolean, Record<string, unknown>]> };
      expect(driven.reset[0]).toBe(firstMessage(script, report.reset.observation));
      expect(driven.steps.map(([observation, reward, terminated, truncated, info]) => [observation, reward, terminated, truncated, without(info, "spade_return")])).toEqual(report.steps.map((step) => [step.observation, step.reward, step.terminated, step.truncated, step.info]));
      expect(driven.steps.at(-1)![4].spade_return).toBe(report.return);
    }
  });

  it("game files: the reference's loader lists every game and plays the same episode as spade env play", () => {
    // The reference builds a game with max_turns=1000 (make_synthetic_env's default) where the
    // workbench uses the class's default, so games whose text states max_turns are left out here.
    for (const script of scripts.filter((s) => !["code_breaker.py", "congruence_puzzle.py"].includes(s.file))) {
      const actions = script.kind === "text" ? workbenchActions(script) : script.replies;
      const report = script.kind === "text" ? plays.get(script.file)! : play(script.file, script.seed, actions);
      const driven = drive("game-files", out("game-files"), gameFile(script.className), script.seed, actions) as { reset: [string, Record<string, unknown>]; steps: Array<[string, number, boolean, boolean, Record<string, unknown>]> };
      expect(driven.reset).toEqual([report.reset.observation, report.reset.info]);
      expect(driven.steps).toEqual(report.steps.map((step) => [step.observation, step.reward, step.terminated, step.truncated, step.info]));
    }
    const listed = readdirSync(out("game-files")).filter((name) => /^game_.*\.py$/.test(name));
    expect(listed).toHaveLength(5);
  });

  it("OpenEnv: reset(hinted=True) appends the environment's own hint as the workbench does", () => {
    const report = play("code_breaker.py", 7, [], true);
    const input = join(dir, "hinted.py");
    writeFileSync(input, `import json, sys\nsys.path[:0] = [${JSON.stringify(join(root, "tests/fixtures/exports/standins"))}, ${JSON.stringify(out("openenv"))}]\nimport importlib\napp = importlib.import_module("code_breaker.server.app").app\nprint(json.dumps(app.session().reset({"seed": 7, "hinted": True})))\n`);
    const result = spawnSync(python, [input], { encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).observation.observation).toBe(report.reset.observation);
    expect(report.reset.observation).toContain("\n\nHINT: ");
  });

  it("OpenEnv: AutoEnv's discovery finds the client <Name>Env in <package>.client, and the action", () => {
    for (const script of scripts) {
      const found = check<{ client: string; action: string; module: string; isClient: boolean }>("openenv-discovery", out("openenv"), script.folder);
      const prefix = script.folder.split("_").map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join("");
      expect(found).toEqual({ client: `${prefix}Env`, action: `${prefix}Action`, module: `${script.folder}.client`, isClient: true });
    }
  });

  it("OpenEnv: the README's code runs as written against the package's server (EnvClient is async: .sync())", () => {
    const report = play("code_breaker.py", 7, [extractFirstBoxedAction("...")]);
    const ran = check<{ prompt: string; observation: string; reward: number; done: boolean }>("openenv-readme", out("openenv"), "code_breaker");
    expect(ran.prompt).toBe(frameFirstObservation(report.reset.observation));
    expect([ran.observation, ran.reward]).toEqual([report.steps[0]!.observation, report.steps[0]!.reward]);
  });

  it("OpenEnv: two sessions of one server play as each would alone (every session's game in its own process)", () => {
    const folder = join(dir, "dice-openenv");
    const code = readFileSync(join(root, "tests/fixtures/exports/dice_roll.py"), "utf8");
    exportEnvironmentPackages([{ className: "DiceRollEnv", code, hint: null, skill: null, winRate: null, hintWinRate: null, regret: null, source: "test", runId: null, iteration: null, maxTurns: 5 }], { format: "openenv", outDir: folder });
    const sessions = check<{ together: string[][]; alone: string[][] }>("openenv-sessions", folder, "dice_roll", "1", "2", "3");
    expect(sessions.together).toEqual(sessions.alone);
    expect(sessions.alone[0]).not.toEqual(sessions.alone[1]);
  });

  it("verifiers: with max_turns n the game steps n replies, and the rollout stops when the game ends (no extra generation)", () => {
    const script = scripts[0]!; // code_breaker: three replies, the game does not end on its own
    const input = join(dir, "verifiers-limit.json");
    writeFileSync(input, JSON.stringify(script.replies));
    const limited = check<{ steps: Array<{ info: Record<string, unknown> | null }>; generations: number; completion: Array<{ role: string; content: string }> }>("verifiers-rollout", out("verifiers"), script.folder, "2", String(script.seed), input);
    const report = play(script.file, script.seed, workbenchActions(script).slice(0, 2));
    expect(limited.steps.map((step) => step.info === null ? null : without(step.info, "spade_return"))).toEqual(report.steps.map((step) => step.info));
    expect(limited.generations).toBe(2);
    expect(limited.completion.at(-1)).toEqual({ role: "user", content: `${report.steps[1]!.observation}\nEpisode already ended.` });
    const dice = join(dir, "dice-verifiers");
    exportEnvironmentPackages([{ className: "DiceRollEnv", code: readFileSync(join(root, "tests/fixtures/exports/dice_roll.py"), "utf8"), hint: null, skill: null, winRate: null, hintWinRate: null, regret: null, source: "test", runId: null, iteration: null, maxTurns: 5 }], { format: "verifiers", outDir: dice });
    writeFileSync(input, JSON.stringify(["\\boxed{roll}", "\\boxed{roll}", "\\boxed{roll}", "\\boxed{roll}", "\\boxed{roll}"]));
    const ended = check<{ steps: unknown[]; generations: number }>("verifiers-rollout", dice, "dice_roll", "5", "0", input);
    expect([ended.steps.length, ended.generations]).toEqual([3, 3]); // the game ends itself after 3 rolls
  });

  it("verifiers: a tool-use game's system prompt shows the model its tools and the protocol", () => {
    const script = scripts.find((s) => s.file === "warehouse_tools.py")!;
    const input = join(dir, "verifiers-tools.json");
    writeFileSync(input, JSON.stringify(script.replies));
    const rollout = check<{ system: string | null }>("verifiers-rollout", out("verifiers"), script.folder, "5", String(script.seed), input);
    expect(rollout.system).toContain("<tool_call>{\"name\": \"<tool name>\", \"arguments\": {...}}</tool_call>");
    for (const tool of ["list_products", "get_stock", "get_price"]) expect(rollout.system).toContain(`"name": "${tool}"`);
    const text = check<{ system: string | null }>("verifiers-rollout", out("verifiers"), "code_breaker", "5", "7", input);
    expect(text.system).toBeNull(); // a text game: the reference's first-turn framing only
  });

  it("GEM: make_vec's autoreset (reset() without a seed) starts a new game every episode, the same ones on every run", () => {
    const first = check<{ episodes: Array<{ seed: number; observation: string }>; expected: string[] }>("gem-autoreset", out("gem"), "congruence_puzzle", "3", "4");
    const seeds = first.episodes.map((episode) => episode.seed);
    expect(seeds[0]).toBe(3);
    expect(new Set(seeds).size).toBe(4);
    expect(first.episodes.map((episode) => episode.observation)).toEqual(first.expected);
    expect(new Set(first.expected).size).toBe(4);
    expect(check<{ episodes: Array<{ seed: number }> }>("gem-autoreset", out("gem"), "congruence_puzzle", "3", "4").episodes.map((episode) => episode.seed)).toEqual(seeds);
  });

  it("game files: a tool-use game imports the reference's tool_use_base_env, and a wrong answer gets the reference's feedback word for word", () => {
    const game = readFileSync(join(out("game-files"), gameFile("WarehouseAuditEnv")), "utf8");
    expect(game).toContain("from tool_use_base_env import ToolUseBaseEnv");
    expect(game).not.toMatch(/^\s*(from|import) spade_env/m);
    // spade/core/envs/tool_use_base_env.py `_incorrect_answer_feedback` at 9b2b813, for step 2 of 3 pending:
    const reference = 'Incorrect. Keep using tools. Not all steps are complete \u2014 you are still on step 2/3: "Put tea in my cart." Complete this step with the tools before submitting <answer>done</answer>.';
    const probe = `import sys\nsys.path.insert(0, ${JSON.stringify(join(root, "resources/python"))})\nfrom spade_env import ToolUseBaseEnv\nclass G(ToolUseBaseEnv):\n    pass\ng = G.__new__(G)\ng._user_messages = ["a", "Put tea in my cart.", "c"]\ng._current_msg = 1\nprint(g._incorrect_answer_feedback())\nprint(G.__new__(G)._incorrect_answer_feedback())\n`;
    const result = spawnSync(python, ["-c", probe], { encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${reference}\nIncorrect. Keep using tools.\n`);
  });

  it("refuses an unknown format, --run with --set, and a missing set, naming the value", () => {
    const db = join(dir, "ws.sqlite");
    const format = spade("envs", "export", "--db", db, "--format", "gym", "--out", join(dir, "x"));
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('--format expects one of openenv, verifiers, gem, game-files, got "gym"');
    const both = spade("envs", "export", "--db", db, "--run", "1", "--set", "examples", "--format", "gem", "--out", join(dir, "x"));
    expect(both.code).toBe(2);
    const missing = spade("envs", "export", "--db", db, "--set", "nope", "--format", "gem", "--out", join(dir, "x"));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('environment set "nope" does not exist');
    const empty = spade("envs", "export", "--db", db, "--format", "openenv", "--out", join(dir, "x"));
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("nothing to export");
  });
});
