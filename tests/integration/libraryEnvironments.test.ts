// Environment libraries the user installs (RLVE-shaped, GEM-shaped, reasoning-gym-shaped), run in
// a real Python worker of /usr/bin/python3: loading, problems drawn from seeds, plays scored by the
// library, and a crash, a hang and a missing dependency each contained; then a whole library run
// through the self-play loop (scripted agent, real SQLite), its difficulty controller moving, and
// a run resumed half-way drawing the problems of an uninterrupted one.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fillLibrary, type LibraryConfig } from "../../shared/libraryConfig.js";
import { parseRunConfig } from "../../shared/runConfig.js";
import { lastUserMessage, ScriptedBackend } from "../../main/bench/ScriptedBackend.js";
import { LibraryHost } from "../../main/library/LibraryHost.js";
import { LibraryLoadError } from "../../main/library/LibraryLoadError.js";
import { parseLibraryProblem } from "../../main/library/LibraryProblem.js";
import { SlidingWindowController } from "../../main/library/SlidingWindowController.js";
import { EnvironmentCodeError, SandboxCrashedError, SandboxTimeoutError } from "../../main/sandbox/errors.js";
import { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { SelfPlayLoop } from "../../main/selfplay/SelfPlayLoop.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { getEnvironment, listEnvironments } from "../../main/store/queries/environments.js";
import { listEpisodes } from "../../main/store/queries/episodes.js";
import { createRun, getRun } from "../../main/store/queries/runs.js";
import { RunController } from "../../main/selfplay/RunController.js";
import { listRunNotes } from "../../main/store/queries/schedule.js";

const python = "/usr/bin/python3";
const fixtures = resolve(import.meta.dirname, "../fixtures/libraries");
const rlve = (set: LibraryConfig["set"], extra: Record<string, unknown> = {}) => fillLibrary({ kind: "rlve", path: join(fixtures, "rlve/Gym"), set, ...extra }, "test.json");

let dir: string;
let host: LibraryHost;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "spade-library-"));
  host = await LibraryHost.start({ library: rlve(["Multiplication", "Crash", "Hang", "Unsolvable"]), python });
});
afterAll(async () => {
  await host?.dispose();
});

const answerOf = (observation: string) => {
  const numbers = /What is (\d+) times (\d+)\?/.exec(observation);
  return numbers ? String(Number(numbers[1]) * Number(numbers[2])) : "0";
};

describe("an RLVE-shaped library in a Python worker", () => {
  it("loads the set, draws the same problem from the same seed, and scores answers with the library", async () => {
    expect(host.environments).toEqual(["Multiplication", "Crash", "Hang", "Unsolvable"]);
    const problem = await host.problem("Multiplication", 2, 1234);
    expect(problem).toMatchObject({ library: "rlve", name: "Multiplication", difficulty: 2 });
    expect([{ digits: 3 }, { digits: 4 }]).toContainEqual(problem.parameter);
    expect(await host.problem("Multiplication", 2, 1234)).toEqual(problem);
    const session = await host.open(problem);
    const { observation } = await session.reset(1);
    // Every reset poses the problem's own problem, whatever the play's seed.
    expect((await session.reset(99)).observation).toBe(observation);
    const right = await session.step(`I think \\boxed{${answerOf(observation)}}`);
    expect(right).toMatchObject({ reward: 1, terminated: true, truncated: false, observation: "Correct!" });
    await session.reset(2);
    const wrong = await session.step("\\boxed{7}");
    expect(wrong.reward).toBe(0);
    expect(wrong.observation).toBe(`Incorrect. The answer was: ${answerOf(observation)}`);
    expect(await session.solution()).toBe(`\\boxed{${answerOf(observation)}}`);
    await session.close();
  });

  it("contains a crash and a hang to their own session; the next session plays on", async () => {
    const crash = await host.open(await host.problem("Crash", 0, 1));
    await crash.reset(1);
    const crashed = await crash.step("\\boxed{1}").catch((error: unknown) => error);
    expect(crashed).toBeInstanceOf(SandboxCrashedError);
    expect((crashed as Error).message).toMatch(/exit code 3/);
    await crash.close();

    const hang = await host.open(await host.problem("Hang", 0, 1), { stepTimeoutMs: 800 });
    await hang.reset(1);
    const hung = await hang.step("\\boxed{1}").catch((error: unknown) => error);
    expect(hung).toBeInstanceOf(SandboxTimeoutError);
    await hang.close();

    const next = await host.open(await host.problem("Multiplication", 0, 5));
    const { observation } = await next.reset(5);
    expect((await next.step(`\\boxed{${answerOf(observation)}}`)).reward).toBe(1);
    await next.close();
  });

  it("says why a problem cannot be drawn, as that call's error", async () => {
    const error = await host.problem("Unsolvable", 1, 3).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnvironmentCodeError);
    expect((error as Error).message).toMatch(/Unsolvable: the generator failed 10 times at difficulty 1/);
  });

  it("refuses at start a missing dependency, a missing folder and names it has not got, naming each", async () => {
    const missing = fillLibrary({ kind: "rlve", path: join(fixtures, "rlve-missing-dependency/Gym"), set: "all" }, "test.json");
    const dependency = await LibraryHost.start({ library: missing, python }).catch((e: unknown) => e);
    expect(dependency).toBeInstanceOf(LibraryLoadError);
    expect((dependency as Error).message).toMatch(/missing dependency: No module named 'spade_test_dependency_that_is_not_installed'.*\/usr\/bin\/python3/);
    const folder = await LibraryHost.start({ library: fillLibrary({ kind: "rlve", path: join(dir, "nowhere/Gym") }, "t.json"), python }).catch((e: unknown) => e);
    expect((folder as Error).message).toMatch(/expected RLVE's Gym folder/);
    const official = await LibraryHost.start({ library: rlve("official16"), python }).catch((e: unknown) => e);
    expect((official as Error).message).toMatch(/set: Division, EuclidGame, .* are not an RLVE environment with a parameter controller/);
    const noController = await LibraryHost.start({ library: rlve(["Multiplication", "NoController"]), python }).catch((e: unknown) => e);
    expect((noController as Error).message).toMatch(/set: NoController is not an RLVE environment/);
  });

  it("plays GEM-shaped and reasoning-gym-shaped libraries through the same interface", async () => {
    const gem = await LibraryHost.start({ library: fillLibrary({ kind: "gem", path: join(fixtures, "gem-like"), set: ["game:GuessTheNumber-v0"] }, "t.json"), python });
    try {
      const session = await gem.open(await gem.problem("game:GuessTheNumber-v0", 0, 11));
      expect((await session.reset(0)).observation).toMatch(/Guess my number/);
      const results = [];
      for (let n = 1; n <= 8; n++) {
        const result = await session.step(`\\boxed{${n}}`);
        results.push(result);
        if (result.terminated || result.truncated) break;
      }
      expect(results.at(-1)).toMatchObject({ reward: 1, terminated: true });
      await session.close();
    } finally {
      await gem.dispose();
    }
    const rg = await LibraryHost.start({ library: fillLibrary({ kind: "reasoning-gym", path: join(fixtures, "rg-like"), set: ["chain_sum"] }, "t.json"), python });
    try {
      const session = await rg.open(await rg.problem("chain_sum", 0, 4));
      const { observation } = await session.reset(0);
      const [, a, b] = /What is (\d+) \+ (\d+)\?/.exec(observation)!;
      expect((await session.step(`\\boxed{${Number(a) + Number(b)}}`)).reward).toBe(1);
      expect(await session.solution()).toBe(`\\boxed{${Number(a) + Number(b)}}`);
      await session.close();
    } finally {
      await rg.dispose();
    }
  });
});

describe("a library run through the self-play loop", () => {
  let pool: SandboxPool;
  beforeAll(async () => {
    pool = await SandboxPool.create({ size: 1, prewarm: 0 });
  });
  afterAll(async () => {
    await pool?.dispose();
  });

  const agent = new ScriptedBackend((request) => `The product is \\boxed{${answerOf(lastUserMessage(request))}}`, 2);
  const configOf = (name: string, iterations: number) =>
    parseRunConfig(
      {
        recipe: "fixed-rlve", db: join(dir, `${name}.sqlite`), seed: 3, iterations, envsPerIteration: 4, plays: 4, maxTurns: 2,
        backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "scripted" }, corpus: null, sandbox: { stepTimeoutMs: 1500 },
        designer: { kind: "library", library: { kind: "rlve", path: join(fixtures, "rlve/Gym"), set: ["Multiplication", "Crash", "Hang", "Unsolvable"], controller: { tauNum: 4, dDelta: 2 } } },
      },
      `${name}.json`,
    );
  const problems = (db: ReturnType<typeof openDatabase>, runId: number) =>
    listEnvironments(db, { runId }).sort((a, b) => a.iteration! - b.iteration! || a.slot! - b.slot!).map((env) => ({ rollout: env.iteration, slot: env.slot, code: getEnvironment(db, env.id)!.code }));

  it("plays every slot's problem, records the crash and the hang as those plays' errors, and moves the difficulty", async () => {
    const config = configOf("whole", 4);
    const db = openDatabase(config.db);
    const run = createRun(db, { config, seed: config.seed });
    const outcome = await new SelfPlayLoop(run.id, config, { db, backend: agent, pool, corpus: null, library: host }).run();
    expect(outcome).toBe("completed");
    const envs = problems(db, run.id);
    expect(envs).toHaveLength(16);
    // A problem the library cannot draw is that slot's invalid environment, with the library's reason.
    const invalid = listEnvironments(db, { runId: run.id }).filter((env) => !env.valid);
    expect(invalid.map((env) => env.className)).toEqual(["Unsolvable", "Unsolvable", "Unsolvable", "Unsolvable"]);
    expect(getEnvironment(db, invalid[0]!.id)!.validationError).toMatch(/Unsolvable at difficulty 0: .*the generator failed 10 times/);
    const byEnv = new Map(listEnvironments(db, { runId: run.id }).map((env) => [env.id, env]));
    const episodes = [...byEnv.keys()].flatMap((id) => listEpisodes(db, id));
    const of = (name: string) => episodes.filter((episode) => byEnv.get(episode.environmentId)!.className === name);
    expect(of("Multiplication").every((episode) => episode.return === 1 && episode.error === null)).toBe(true);
    expect(of("Crash").every((episode) => /library worker ended \(exit code 3\)/.test(episode.error ?? ""))).toBe(true);
    // The reference's fixed-environment orchestrator plays each instance once: a failed library play is not retried.
    expect(listRunNotes(db, run.id).filter((note) => note.kind === "play retried")).toEqual([]);
    expect(of("Hang").every((episode) => episode.timedOut)).toBe(true);
    expect(episodes.every((episode) => !episode.hinted)).toBe(true);
    // RLVE problems are framed as the reference frames them: the problem, then the instruction (no game framing).
    const first = agent.calls.find((call) => /What is \d+ times/.test(lastUserMessage(call)))!;
    expect(lastUserMessage(first)).toMatch(/^What is \d+ times \d+\?\n\nPlease reason step by step, and put your final answer within \\boxed\{\{\}\}\.$/);

    // The controller, replayed by hand from the stored plays: always right at the top promotes it
    // every rollout (4 plays >= tauNum 4) whenever the drawn difficulty is the top.
    const controller = new SlidingWindowController(config.designer.library!.controller);
    const multiplication = envs.filter((env) => env.code !== null && parseLibraryProblem(env.code)?.name === "Multiplication");
    expect(parseLibraryProblem(multiplication[0]!.code!)!.difficulty).toBe(0);
    for (const env of multiplication) {
      const { difficulty } = parseLibraryProblem(env.code!)!;
      const { low, high } = controller.window("Multiplication");
      expect(difficulty).toBeGreaterThanOrEqual(low);
      expect(difficulty).toBeLessThanOrEqual(high);
      for (let i = 0; i < 4; i++) controller.update("Multiplication", difficulty, 1);
    }
    expect(controller.window("Multiplication").high).toBeGreaterThan(0);
    db.close();
  });

  it("resumed after two rollouts, draws exactly the problems of the uninterrupted run", async () => {
    const whole = openDatabase(configOf("whole", 4).db);
    const expected = problems(whole, 1);
    whole.close();
    const config = configOf("resumed", 4);
    const db = openDatabase(config.db);
    const run = createRun(db, { config, seed: config.seed });
    await new SelfPlayLoop(run.id, configOf("resumed", 2), { db, backend: agent, pool, corpus: null, library: host }).run();
    await new SelfPlayLoop(run.id, config, { db, backend: agent, pool, corpus: null, library: host }).run();
    expect(problems(db, run.id)).toEqual(expected);
    db.close();
  });

  it("a run whose library cannot load fails at its start with the reason, before the model or the sandbox", async () => {
    const config = parseRunConfig(
      { db: join(dir, "missing.sqlite"), backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m" }, corpus: null, designer: { kind: "library", library: { kind: "rlve", path: join(fixtures, "rlve-missing-dependency/Gym"), set: "all", python } } },
      "missing.json",
    );
    const db = openDatabase(config.db);
    const made: string[] = [];
    const controller = new RunController({
      db,
      createBackend: async () => (made.push("backend"), agent),
      createPool: async () => (made.push("pool"), pool),
    });
    const { runId } = await controller.start(config);
    expect(await controller.wait(runId)).toBe("failed");
    expect(getRun(db, runId)!.error).toMatch(/designer\.library \(rlve at .*rlve-missing-dependency\/Gym\): missing dependency: No module named 'spade_test_dependency_that_is_not_installed'/);
    expect(made).toEqual([]);
    db.close();
  });
});
