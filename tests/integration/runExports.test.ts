// Run exports for other tools: metrics as CSV and TensorBoard events, environments as verl prompts
// whose reward function plays replies in the workbench's sandbox.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parquetReadObjects } from "hyparquet";
import { beforeAll, describe, expect, it } from "vitest";
import { decodeEvent, readTfRecords } from "../support/tfEvents.js";
import { crc32c, maskedCrc32c } from "../../main/exports/crc32c.js";
import { exportRunData } from "../../main/exports/exportRunData.js";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { insertEpisodeWithTurns } from "../../main/store/queries/episodes.js";
import { completeIteration, startIteration } from "../../main/store/queries/iterations.js";
import { putMetrics } from "../../main/store/queries/metrics.js";
import { createRun } from "../../main/store/queries/runs.js";
import { seedTrainingWorkspace, systemPrompt } from "../support/trainingFixture.js";

const repo = resolve(import.meta.dirname, "../..");
const cli = join(repo, "out/engine/main/cli/spade.js");

let db: WritableDb;
let ids: ReturnType<typeof seedTrainingWorkspace>;
let second: number;
beforeAll(() => {
  db = openDatabase(join(mkdtempSync(join(tmpdir(), "spade-run-exports-")), "ws.sqlite"));
  ids = seedTrainingWorkspace(db);
  for (const iteration of [0, 1]) {
    startIteration(db, ids.runId, iteration);
    completeIteration(db, ids.runId, iteration);
  }
  putMetrics(db, ids.runId, 0, { validityRate: 0.5, meanRegret: 0.125, winRateHistogram: [1, 2] });
  putMetrics(db, ids.runId, 1, { validityRate: 1, meanRegret: null, noveltyRate: 0.25 });
  second = createRun(db, { name: 'second, "quoted"' }).id;
  putMetrics(db, second, 0, { validityRate: 0.75 });
});

function exported(format: "metrics-csv" | "tensorboard" | "verl", runId?: number) {
  const outDir = mkdtempSync(join(tmpdir(), `spade-${format}-`));
  return { outDir, manifest: exportRunData(db, { format, outDir, runId }) };
}

describe("metrics-csv", () => {
  it("writes every run's scalar metrics per iteration, a gap where a metric was not measured", () => {
    const { outDir, manifest } = exported("metrics-csv");
    expect(readFileSync(join(outDir, "metrics.csv"), "utf8")).toBe(
      [
        "run,run_name,iteration,step,meanRegret,noveltyRate,validityRate",
        `${ids.runId},fixture,0,0,0.125,,0.5`,
        `${ids.runId},fixture,1,1,,0.25,1`,
        `${second},"second, ""quoted""",0,0,,,0.75`,
        "",
      ].join("\n"),
    );
    // One file per run with a step column: what Trackio's CSV import reads.
    expect(readFileSync(join(outDir, `run-${ids.runId}`, "metrics.csv"), "utf8")).toBe(["step,meanRegret,noveltyRate,validityRate", "0,0.125,,0.5", "1,,0.25,1", ""].join("\n"));
    expect(readFileSync(join(outDir, `run-${second}`, "metrics.csv"), "utf8")).toBe(["step,validityRate", "0,0.75", ""].join("\n"));
    expect(manifest.counts).toEqual({ runs: 2, iterations: 3, metrics: 3 });
    expect(manifest.notes).toEqual(["metrics that are not scalars were left out: winRateHistogram"]);
    expect(JSON.parse(readFileSync(join(outDir, "manifest.json"), "utf8"))).toEqual(manifest);
  });
});

describe("tensorboard", () => {
  it("uses CRC-32C as TFRecord does", () => {
    expect(crc32c(Buffer.from("123456789"))).toBe(0xe3069283);
    expect(maskedCrc32c(Buffer.from(""))).toBe(((0 >>> 15 | 0 << 17) + 0xa282ead8) >>> 0);
  });

  it("writes one event file per run whose records and summaries decode to the metrics", () => {
    const { outDir } = exported("tensorboard", ids.runId);
    const folder = join(outDir, `run-${ids.runId}`);
    const [name] = readdirSync(folder);
    expect(name).toMatch(/^events\.out\.tfevents\.\d+\.spade$/);
    const events = readTfRecords(readFileSync(join(folder, name!))).map(decodeEvent);
    expect(events[0]).toMatchObject({ step: 0, fileVersion: "brain.Event:2", values: [] });
    expect(events.slice(1).filter((event) => event.hparams.length === 0).map((event) => [event.step, event.values])).toEqual([
      [0, [["spade/meanRegret", 0.125], ["spade/validityRate", 0.5]]],
      [1, [["spade/noveltyRate", 0.25], ["spade/validityRate", 1]]],
    ]);
    for (const event of events) expect(event.wallTime).toBeGreaterThan(1.7e9);
  });

  it("gives each run's file its config as an HParams session, ended for a finished run", () => {
    const config = { seed: 4, reward: { kind: "regret" }, corpus: null };
    const finished = createRun(db, { name: "finished", config, status: "completed" }).id;
    const { outDir } = exported("tensorboard");
    const sessions = (runId: number) => {
      const folder = join(outDir, `run-${runId}`);
      return readdirSync(folder).flatMap((name) => readTfRecords(readFileSync(join(folder, name))).map(decodeEvent)).flatMap((event) => event.hparams);
    };
    const [start, end] = sessions(finished);
    expect(start?.sessionStartInfo?.hparams).toEqual({ seed: 4, "reward.kind": "regret", corpus: "null" });
    expect(end?.sessionEndInfo?.status).toBe(1);
    // A run still going (or paused) has a session start and no end.
    expect(sessions(second).map((h) => h.tag)).toEqual(["_hparams_/session_start_info"]);
  });
});

describe("verl", () => {
  it("writes one prompt row per unhinted (environment, seed) with the first prompt as the agent saw it", async () => {
    const { outDir, manifest } = exported("verl", ids.runId);
    const rows = (await parquetReadObjects({ file: toArrayBuffer(readFileSync(join(outDir, "verl.parquet"))) })) as Array<Record<string, unknown> & { extra_info: Record<string, unknown> }>;
    expect(manifest.counts).toEqual({ rows: 9, environments: 3, excludedNoPrompt: 0 });
    expect(rows).toHaveLength(9);
    expect(rows[0]).toMatchObject({
      data_source: `spade/run-${ids.runId}`,
      prompt: [{ role: "system", content: systemPrompt }, { role: "user", content: `task of env ${ids.envA}` }],
      ability: "Planning",
      reward_model: { style: "rule", ground_truth: JSON.stringify({ environmentId: ids.envA, seed: 100 }) },
    });
    expect(rows[0]!.extra_info).toMatchObject({ split: "train", class_name: "AEnv", code: "class AEnv: pass" });
    expect(rows.map((row) => Number(row.extra_info.seed))).toEqual([100, 101, 102, 103, 104, 100, 101, 102, 100]);
    expect(readFileSync(join(outDir, "spade_verl_reward.py"), "utf8")).toContain("def compute_score(");
  });

  it("its reward function plays a reply in the workbench sandbox, exactly as `spade env play` scores it", () => {
    const code = readFileSync(join(repo, "resources/environments/congruence_puzzle.py"), "utf8");
    const run = createRun(db, { name: "verl" });
    const env = insertEnvironment(db, { runId: run.id, source: "designer", code, className: "CongruencePuzzleEnv", valid: true, skill: "Math" });
    insertEpisodeWithTurns(db, { runId: run.id, environmentId: env, hinted: false, playIndex: 0, seed: 3, return: 0, firstObservation: "x" }, [
      { messages: [{ role: "user", content: "x" }], rawReply: "\\boxed{1}", action: "\\boxed{1}", observation: "o", reward: 0 },
    ]);
    const { outDir } = exported("verl", run.id);
    const script = [
      "import json, sys",
      `sys.path.insert(0, ${JSON.stringify(outDir)})`,
      "from spade_verl_reward import compute_score",
      `info = {"code": open(${JSON.stringify(join(repo, "resources/environments/congruence_puzzle.py"))}).read(), "seed": 3}`,
      // The puzzle for seed 3 asks x = 3 (mod 4), 4 (mod 9), 1 (mod 11): 67 solves it, 5 does not.
      "print(json.dumps([compute_score('spade', 'I think \\\\boxed{67} and not \\\\boxed{5}', '', info), compute_score('spade', '\\\\boxed{5}', '', info)]))",
    ].join("\n");
    const scores = JSON.parse(execFileSync("python3", ["-c", script], { encoding: "utf8", env: { ...process.env, SPADE_CLI: `${process.execPath} ${cli}` } })) as number[];
    const expected = [67, 5].map((answer) => {
      const played = spawnSync(process.execPath, [cli, "env", "play", join(repo, "resources/environments/congruence_puzzle.py"), "--seed", "3", "--action", `\\boxed{${answer}}`, "--json"], { encoding: "utf8" });
      return JSON.parse(played.stdout).steps[0].reward as number;
    });
    expect(scores).toEqual(expected);
    expect(expected[0]).toBeGreaterThan(expected[1]!);
  });

  it("its multi-turn interaction keeps one sandbox session per rollout: every reply is one step of the same episode, as spade env play plays it", async () => {
    const file = join(repo, "resources/environments/code_breaker.py");
    const code = readFileSync(file, "utf8");
    const run = createRun(db, { name: "verl multi-turn", config: { maxTurns: 3 } });
    const env = insertEnvironment(db, { runId: run.id, source: "designer", code, className: "CodeBreakerEnv", valid: true, skill: "Logic" });
    insertEpisodeWithTurns(db, { runId: run.id, environmentId: env, hinted: false, playIndex: 0, seed: 7, return: 0, firstObservation: "x" }, [
      { messages: [{ role: "user", content: "x" }], rawReply: "\\boxed{0123}", action: "\\boxed{0123}", observation: "o", reward: 0 },
    ]);
    const { outDir, manifest } = exported("verl", run.id);
    expect(manifest.notes!.join("\n")).toContain("interaction_config_path to spade_interaction.yaml");
    const rows = (await parquetReadObjects({ file: toArrayBuffer(readFileSync(join(outDir, "verl.parquet"))) })) as Array<{ extra_info: { interaction_kwargs: Record<string, unknown> } }>;
    expect(rows[0]!.extra_info.interaction_kwargs).toMatchObject({ name: "spade", code, seed: 7n, max_turns: 3n });
    expect(readFileSync(join(outDir, "spade_interaction.yaml"), "utf8")).toContain("class_name: spade_verl_interaction.SpadeInteraction");
    const replies = ["try \\boxed{0123}", "then \\boxed{4567} or \\boxed{9}", "\\boxed{8901}", "never sent"];
    const script = [
      "import asyncio, json, sys",
      `sys.path.insert(0, ${JSON.stringify(outDir)})`,
      "from spade_verl_interaction import SpadeInteraction",
      "async def main():",
      "    interaction = SpadeInteraction({'name': 'spade'})",
      `    kwargs = {'code': open(${JSON.stringify(file)}).read(), 'seed': 7, 'max_turns': 3}`,
      "    instance = await interaction.start_interaction('r1', **kwargs)",
      "    messages, turns = [], []",
      `    for reply in ${JSON.stringify(replies)}:`,
      "        messages.append({'role': 'assistant', 'content': reply})",
      "        done, text, score, extra = await interaction.generate_response(instance, messages)",
      "        turns.append([done, text, score, extra['truncated']])",
      "        messages.append({'role': 'user', 'content': text})",
      "        if done: break",
      "    total = await interaction.calculate_score(instance)",
      "    await interaction.finalize_interaction(instance)",
      "    print(json.dumps({'turns': turns, 'score': total}))",
      "asyncio.run(main())",
    ].join("\n");
    const result = JSON.parse(execFileSync("python3", ["-c", script], { encoding: "utf8", env: { ...process.env, SPADE_CLI: `${process.execPath} ${cli}` } })) as { turns: Array<[boolean, string, number, boolean]>; score: number };
    const played = spawnSync(process.execPath, [cli, "env", "play", file, "--seed", "7", "--max-turns", "3", "--json", "--action", "\\boxed{0123}", "--action", "\\boxed{4567}", "--action", "\\boxed{8901}"], { encoding: "utf8" });
    const report = JSON.parse(played.stdout) as { steps: Array<{ observation: string; reward: number }> };
    // Three replies, three steps of ONE episode (the feedback counts the turns down, the game's own max_turns capped at the run's 3); the turn limit (3) ends it.
    // A turn's score is the SPADE return so far: 0 until the game terminates (the turn limit truncates it).
    expect(result.turns.map(([done, text, score]) => [done, text, score])).toEqual(report.steps.map((step, i) => [i === 2, step.observation, 0]));
    expect(result.turns.at(-1)![3]).toBe(true);
    expect(result.score).toBe(0);
  }, 240_000);
});

describe("verl's agent loop (issue #33)", () => {
  const standins = join(repo, "tests/fixtures/exports/standins");

  /** One rollout of SpadeAgentLoop (registered by spade_agent_loop.yaml) in the stand-in of verl's ToolAgentLoop. */
  function rollout(outDir: string, file: string, seed: number, maxTurns: number, replies: string[]) {
    const script = [
      "import asyncio, importlib, json, os, sys, yaml",
      `sys.path[:0] = [${JSON.stringify(standins)}, ${JSON.stringify(outDir)}]`,
      `config = yaml.safe_load(open(os.path.join(${JSON.stringify(outDir)}, 'spade_agent_loop.yaml')))[0]`,
      "module, name = config['_target_'].rsplit('.', 1)",
      "cls = getattr(importlib.import_module(module), name)",
      `replies = iter(${JSON.stringify(replies)})`,
      `trainer = {'multi_turn': {'interaction_config_path': os.path.join(${JSON.stringify(outDir)}, 'spade_interaction.yaml'), 'max_assistant_turns': 20, 'format': 'hermes'}}`,
      "loop = cls(trainer_config=trainer, server_manager=lambda messages: next(replies, None), tokenizer=None, processor=None)",
      `kwargs = {'name': 'spade', 'code': open(${JSON.stringify(file)}).read(), 'seed': ${seed}, 'max_turns': ${maxTurns}}`,
      "output = asyncio.run(loop.run({}, raw_prompt=[{'role': 'user', 'content': 'x'}], extra_info={'interaction_kwargs': kwargs}))",
      // A process of the machine may end between the listing and the read (a busy machine): it is not running, so not a child left running.
      "def parent_of(p):\n    try:\n        return open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()[1]\n    except OSError:\n        return None",
      "children = [p for p in os.listdir('/proc') if p.isdigit() and parent_of(p) == str(os.getpid())]",
      "from spade_verl_reward import compute_score",
      "score = compute_score('spade', 'whole response \\\\boxed{x}', '', extra_info={'code': kwargs['code'], 'seed': kwargs['seed'], **output.extra_fields})",
      "print(json.dumps({'loop': name, 'reward_score': output.reward_score, 'spade_return': output.extra_fields.get('spade_return'), 'compute_score': score, 'children': len(children), 'observations': [m['content'] for m in output.messages if m['role'] in ('user', 'tool')][1:]}))",
    ].join("\n");
    return JSON.parse(execFileSync("/usr/bin/python3", ["-c", script], { encoding: "utf8", env: { ...process.env, SPADE_CLI: `${process.execPath} ${cli}` } })) as { loop: string; reward_score: number; spade_return: number; compute_score: number; children: number; observations: string[] };
  }

  function verlExport(file: string, className: string, maxTurns: number) {
    const code = readFileSync(file, "utf8");
    const run = createRun(db, { name: `verl ${className}`, config: { maxTurns } });
    const env = insertEnvironment(db, { runId: run.id, source: "designer", code, className, valid: true, skill: "Logic" });
    insertEpisodeWithTurns(db, { runId: run.id, environmentId: env, hinted: false, playIndex: 0, seed: 11, return: 0, firstObservation: "x" }, [
      { messages: [{ role: "user", content: "x" }], rawReply: "r", action: "r", observation: "o", reward: 0 },
    ]);
    return exported("verl", run.id);
  }

  it("rows name the agent loop verl runs them in, and its config registers SpadeAgentLoop", async () => {
    const { outDir, manifest } = verlExport(join(repo, "tests/fixtures/exports/two_step_win.py"), "TwoStepWinEnv", 3);
    const rows = (await parquetReadObjects({ file: toArrayBuffer(readFileSync(join(outDir, "verl.parquet"))) })) as Array<{ agent_name: string }>;
    expect(rows.map((row) => row.agent_name)).toEqual(["spade_agent"]);
    expect(readFileSync(join(outDir, "spade_agent_loop.yaml"), "utf8")).toBe("- name: spade_agent\n  _target_: spade_verl_interaction.SpadeAgentLoop\n");
    expect(manifest.notes!.join("\n")).toContain("agent_loop_config_path to spade_agent_loop.yaml");
  });

  it("a multi-turn game's reward is its return (won on turn 2: 1.0), and no spade env session is left running", () => {
    const file = join(repo, "tests/fixtures/exports/two_step_win.py");
    const { outDir } = verlExport(file, "TwoStepWinEnv", 3);
    const result = rollout(outDir, file, 11, 3, ["hello \\boxed{no}", "\\boxed{yes}", "never sent"]);
    expect(result).toMatchObject({ loop: "SpadeAgentLoop", reward_score: 1, spade_return: 1, compute_score: 1, children: 0 });
    expect(result.observations).toEqual(["Now say yes.", "You win."]);
    // A rollout that verl cuts off before the game ends (the replies run out) is finalised too.
    const cut = rollout(outDir, file, 11, 3, ["hello"]);
    expect(cut).toMatchObject({ reward_score: 0, children: 0 });
  }, 240_000);

  it("<tool_call> replies reach the game (not verl's tool parser), as spade env play plays them", () => {
    const file = join(repo, "resources/environments/errand_tools.py");
    const { outDir } = verlExport(file, "ErrandStepsEnv", 5);
    const replies = ['<tool_call>{"name": "view_catalog", "arguments": {}}</tool_call>', "<answer>done</answer>", '<tool_call>{"name": "checkout", "arguments": {"method": "card"}}</tool_call>'];
    const result = rollout(outDir, file, 11, 5, replies);
    const played = JSON.parse(spawnSync(process.execPath, [cli, "env", "play", file, "--seed", "11", "--json", ...replies.flatMap((reply) => ["--action", reply])], { encoding: "utf8" }).stdout) as { steps: Array<{ observation: string }> };
    expect(result.observations).toEqual(played.steps.map((step) => step.observation));
    expect(result.children).toBe(0);
  }, 240_000);
});

function toArrayBuffer(bytes: Buffer): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}
