import { randomInt } from "node:crypto";
import type { StepResult, ToolSchema, ValidationReport } from "../../shared/environment.js";
import type { EnvSession } from "../sandbox/EnvSession.js";
import { EnvironmentCodeError, EnvironmentContractError } from "../sandbox/errors.js";
import type { SandboxPool } from "../sandbox/SandboxPool.js";
import { CheckFailure, describeError, endsSession, ValidationRun } from "./ValidationRun.js";
import { playSolution } from "./playSolution.js";
import { createRng, deriveSeed } from "../util/seededRandom.js";

export interface ValidateOptions {
  /** Deadline for the whole validation, in ms; a check still running then fails with "timeout". Defaults to 60000. */
  timeoutMs?: number;
  /** The fixed actions `step()` is probed with after `reset(seed=42)`. Defaults to SPADE's `\boxed{1}`, `\boxed{test}`, `\boxed{42}`. */
  probeActions?: string[];
  /** Seeded random actions probed after the fixed ones, so an environment cannot recognise the probes. Defaults to 3. */
  randomProbes?: number;
  /** Seed of the random probe actions. Defaults to a hash of the code. */
  probeSeed?: number;
  /**
   * The deviation `validator.strict`: this project's extra checks (EXTRA_CHECKS) make a game
   * invalid, as the reference's rule does. Defaults to false: they are stored as warnings.
   */
  strict?: boolean;
  /**
   * Reset seeds checked besides 42 and 123 (their trajectories must work and repeat in the fresh
   * replay), so a game cannot pass by behaving only on the public seeds. Defaults to 2 secret
   * seeds drawn from the operating system's entropy at every validation.
   */
  secretSeeds?: number[];
  /** Time for playing the environment's own solution after the checks (recorded, never a check), in ms. Defaults to 5000. */
  solutionPlayMs?: number;
  /** The run's turn limit, given to every open (the class built and its `max_turns` capped as the run's plays do, SandboxPool's `maxTurns`). Defaults to null (built without arguments). */
  maxTurns?: number | null;
}

/** Two secret reset seeds, new at every validation. */
function drawSecretSeeds(): number[] {
  return [randomInt(1, 2 ** 31), randomInt(1, 2 ** 31)];
}

/** SPADE's probe actions. */
export const PROBE_ACTIONS = ["\\boxed{1}", "\\boxed{test}", "\\boxed{42}"];

/**
 * The checks, in the order they run: first the reference's rule (a failure ends the validation and
 * makes the game invalid), then this project's extra checks (EXTRA_CHECKS), which are stored as
 * warnings unless `validator.strict`. The report lists the checks that ran.
 */
export const CHECKS = [
  // The reference's rule (spade/core/envs/synthetic_game_env.py):
  "code_executes", //     the code compiles and runs (standard library only)
  "single_env_class", //  one top-level class whose name ends in Env
  "constructs", //        that class can be created with no arguments
  "tool_schemas", //      tool-use environments only: get_tools() gives OpenAI function schemas
  "reset_42", //          reset(seed=42) returns a non-empty str and a dict
  "step_probes", //       step() answers the three fixed probes (until the episode ends) with typed 5-tuples, finite reward in [-10, 10]
  "reset_123", //         reset(seed=123) works too
  // This project's extra checks:
  "reset_deterministic", // reset(seed=42) twice gives the same first observation
  "random_probes", //     step() answers seeded random actions the same way (an environment cannot recognise the probes)
  "reward_range", //      the probe rewards stay in [-1, 1]
  "observation_size", //  no observation was cut at the size limit
  "solution", //          solution() returns a non-empty str
  "hint", //              hint(), when defined, returns a non-empty str
  "deterministic", //     whole short trajectories for seeds 42 and 123 repeat exactly in a fresh play
] as const;

/** This project's checks beyond the reference's rule: warnings, or failures under `validator.strict`. */
export const EXTRA_CHECKS: ReadonlySet<string> = new Set(["reset_deterministic", "random_probes", "reward_range", "observation_size", "solution", "hint", "deterministic"]);

const TRUNCATION = /\n\[observation truncated: (\d+) characters exceed the (\d+) character limit\]$/;

function quote(text: string, limit = 60): string {
  return `"${text.length > limit ? `${text.slice(0, limit)}...` : text}"`;
}

const WORDS = ["up", "left", "yes", "no", "north", "red", "7", "stop", "a", "swap"];

/** `count` actions in the shapes models write: boxed numbers, boxed words, tool-call-like text, free text. */
export function randomProbeActions(seed: number, count: number): string[] {
  const random = createRng(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)] as T;
  return Array.from({ length: count }, () => {
    const shape = Math.floor(random() * 4);
    if (shape === 0) return `\\boxed{${Math.floor(random() * 10_000)}}`;
    if (shape === 1) return `\\boxed{${pick(WORDS)}}`;
    if (shape === 2) return `<answer>${pick(WORDS)} ${Math.floor(random() * 100)}</answer>`;
    return `${pick(WORDS)} ${pick(WORDS)} ${Math.floor(random() * 1000)}`;
  });
}

/** Validates one environment's code in the sandbox, like Gymnasium's check_env (see CHECKS). */
export async function validateEnvironment(pool: SandboxPool, code: string, options: ValidateOptions = {}): Promise<ValidationReport> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const probes = { fixed: options.probeActions ?? PROBE_ACTIONS, random: randomProbeActions(options.probeSeed ?? deriveSeed("probes", code), options.randomProbes ?? 3) };
  const deadlineAt = Date.now() + timeoutMs;
  const run = new ValidationRun({ extraChecks: EXTRA_CHECKS, strict: options.strict ?? false });
  let session: EnvSession;
  try {
    session = await pool.open(code, { deadlineAt, maxTurns: options.maxTurns ?? null });
  } catch (error) {
    recordOpenFailure(run, error);
    return run.report();
  }
  run.className = session.className;
  run.pass("code_executes", "the code compiles and runs");
  run.pass("single_env_class", `found ${session.className}`);
  run.pass("constructs", `${session.className}() was created`);
  const seeds = [42, 123, ...(options.secretSeeds ?? drawSecretSeeds())];
  let replay: { probes: string[]; trajectories: string[] } | null;
  try {
    replay = await runSessionChecks(run, session, probes, seeds);
  } finally {
    await session.close();
  }
  if (!run.failed && replay) await checkDeterminism(run, pool, code, replay.probes, seeds, replay.trajectories, deadlineAt, options.maxTurns ?? null);
  // Recorded, not checked, after every check so it cannot change one: whether the environment's
  // own solution solves it (its hint is trusted only then), within a short budget of its own.
  if (!run.failed) run.solutionPlay = await recordSolutionPlay(pool, code, Math.min(deadlineAt, Date.now() + (options.solutionPlayMs ?? 5000)), options.maxTurns ?? null);
  return run.report();
}

/** Plays the environment's own solution from reset(seed=42) in a session of its own; never throws. */
async function recordSolutionPlay(pool: SandboxPool, code: string, deadlineAt: number, maxTurns: number | null): Promise<{ solves: boolean; detail: string }> {
  let session: EnvSession;
  try {
    session = await pool.open(code, { deadlineAt, maxTurns });
  } catch (error) {
    return { solves: false, detail: `playing the solution failed: ${describeError(error).detail}` };
  }
  try {
    return await playSolution(session, 42);
  } finally {
    await session.close();
  }
}

/** One short trajectory as text: reset(seed) then the probe actions until the episode ends. */
async function trajectory(session: EnvSession, seed: number, probes: string[]): Promise<string> {
  const steps: unknown[] = [await session.reset(seed)];
  for (const action of probes) {
    const step = await session.step(action);
    steps.push(step);
    if (step.terminated || step.truncated) break;
  }
  return JSON.stringify(steps);
}

/**
 * The trajectories of every validation seed again, in a fresh process (nothing of the first plays
 * can carry over): they must repeat exactly.
 */
async function checkDeterminism(run: ValidationRun, pool: SandboxPool, code: string, probes: string[], seeds: number[], first: string[], deadlineAt: number, maxTurns: number | null): Promise<void> {
  await run.check("deterministic", async () => {
    const session = await pool.open(code, { deadlineAt, freshProcess: true, maxTurns });
    try {
      for (const [index, seed] of seeds.entries()) {
        const shown = index < 2 ? String(seed) : "a secret seed";
        const again = await trajectory(session, seed, probes);
        if (again !== first[index]) {
          const a = first[index] ?? "";
          let at = 0;
          while (at < a.length && a[at] === again[at]) at++;
          throw new CheckFailure(
            `the same seed (${shown}) and actions gave a different trajectory in a fresh play (first difference near ${quote(again.slice(Math.max(0, at - 20), at + 40))}); ` +
              "derive every random choice from the reset seed, not from the clock, os.urandom, id() or state kept between episodes",
          );
        }
      }
      return `seeds 42, 123 and ${seeds.length - 2} secret seeds give the same trajectories in a fresh process`;
    } finally {
      await session.close();
    }
  });
}

function recordOpenFailure(run: ValidationRun, error: unknown): void {
  const stage = error instanceof EnvironmentCodeError || error instanceof EnvironmentContractError ? error.stage : undefined;
  const className = error instanceof EnvironmentCodeError || error instanceof EnvironmentContractError ? error.className : undefined;
  const { detail, line } = describeError(error);
  if (className) run.className = className;
  if (stage === "compile" && error instanceof EnvironmentCodeError) {
    run.fail("code_executes", `the code does not compile: ${error.exception}`, line);
  } else if (stage === "execute" && error instanceof EnvironmentCodeError) {
    run.fail("code_executes", `running the code raised ${error.exception}`, line);
  } else if (stage === "execute" && error instanceof EnvironmentContractError) {
    run.fail("code_executes", error.message);
  } else if (stage === "find_class" && error instanceof EnvironmentContractError) {
    run.pass("code_executes", "the code compiles and runs");
    run.fail("single_env_class", error.message);
  } else if (stage === "construct" || stage === "get_tools") {
    run.pass("code_executes", "the code compiles and runs");
    run.pass("single_env_class", `found ${className ?? "the class"}`);
    const exception = error instanceof EnvironmentCodeError ? error.exception : detail;
    if (stage === "construct") run.fail("constructs", `${className ?? "the class"}() raised ${exception}`, line);
    else {
      run.pass("constructs", `${className ?? "the class"}() was created`);
      run.fail("tool_schemas", error instanceof EnvironmentContractError ? error.message : `get_tools() raised ${exception}`, line);
    }
  } else {
    // A timeout, the memory limit or a crash while the code ran or the class was created.
    run.fail("code_executes", `running the code and creating the environment failed: ${detail}`, line);
  }
}

/**
 * Runs the checks on an open session: the reference's rule, then the extra checks. Returns the
 * probes and every validation seed's trajectory for the determinism replay, or null when the
 * validation stops here (an invalidating failure, or the session ended).
 */
async function runSessionChecks(run: ValidationRun, session: EnvSession, probes: { fixed: string[]; random: string[] }, seeds: number[]): Promise<{ probes: string[]; trajectories: string[] } | null> {
  const observations: Array<{ what: string; observation: string }> = [];
  const probeResults: Array<{ action: string; step: StepResult }> = [];
  const steps: Array<[string, () => Promise<string>]> = [];
  if (session.kind === "tool") steps.push(["tool_schemas", async () => checkTools(session.tools)]);
  let firstObservation = "";
  let randomProbesPassed = false;
  const probe = async (action: string): Promise<StepResult> => {
    const step = await session.step(action);
    if (!Number.isFinite(step.reward) || Math.abs(step.reward) > 10) {
      throw new CheckFailure(`step(${quote(action)}) returned a reward of ${step.reward}; rewards must be finite numbers in [-10, 10]`);
    }
    probeResults.push({ action, step });
    observations.push({ what: `step(${quote(action)})`, observation: step.observation });
    return step;
  };
  steps.push(
    ["reset_42", async () => {
      const { observation } = await session.reset(42);
      if (observation.length === 0) throw new CheckFailure("reset(seed=42) returned an empty observation; the first observation must describe the task");
      observations.push({ what: "reset(seed=42)", observation });
      firstObservation = observation;
      return `reset(seed=42) returned a ${observation.length}-character observation and an info dict`;
    }],
    // As the reference: the probes follow reset(seed=42) and stop when the episode ends.
    ["step_probes", async () => {
      const answered: string[] = [];
      for (const action of probes.fixed) {
        const step = await probe(action);
        answered.push(quote(action));
        if (step.terminated || step.truncated) break;
      }
      return `step() answered ${answered.join(", ")} with well-typed 5-tuples`;
    }],
    ["reset_123", async () => {
      await session.reset(123);
      return "reset(seed=123) works";
    }],
    ["reset_deterministic", async () => {
      const { observation } = await session.reset(42);
      if (observation !== firstObservation) {
        throw new CheckFailure(`reset(seed=42) twice gave different observations: first ${quote(firstObservation)}, then ${quote(observation)}; seed every random choice from the seed`);
      }
      return "reset(seed=42) twice gave the same observation";
    }],
    ["random_probes", async () => {
      if (probes.random.length === 0) return "no random probes asked for";
      await session.reset(42);
      for (const action of probes.random) {
        const step = await probe(action);
        if (step.terminated || step.truncated) await session.reset(42);
      }
      randomProbesPassed = true;
      return `step() answered the random actions ${probes.random.map((action) => quote(action)).join(", ")} with well-typed 5-tuples`;
    }],
    ["reward_range", async () => {
      const outside = probeResults.find(({ step }) => step.reward < -1 || step.reward > 1);
      if (outside) throw new CheckFailure(`step(${quote(outside.action)}) gave a reward of ${outside.step.reward}; rewards should stay in [-1, 1]`);
      return `probe rewards ${probeResults.map(({ step }) => step.reward).join(", ")} are within [-1, 1]`;
    }],
    ["observation_size", async () => {
      for (const { what, observation } of observations) {
        const cut = TRUNCATION.exec(observation);
        if (cut) throw new CheckFailure(`the observation of ${what} is ${cut[1]} characters, over the ${cut[2]} character limit`);
      }
      return `all ${observations.length} observations are within the size limit`;
    }],
    ["solution", async () => {
      const solution = await session.solution();
      if (solution.trim().length === 0) throw new CheckFailure("solution() returned an empty string; it must give a reference answer or action sequence");
      return `solution() returned ${quote(solution)}`;
    }],
    ["hint", async () => {
      const hint = await session.hint();
      if (hint === null) return "no hint() defined (optional)";
      if (hint.trim().length === 0) throw new CheckFailure("hint() returned an empty string");
      return `hint() returned ${quote(hint)}`;
    }],
  );
  for (const [name, body] of steps) {
    let sessionEnded = false;
    await run.check(name, async () => {
      try {
        return await body();
      } catch (error) {
        sessionEnded = endsSession(error);
        throw error;
      }
    });
    if (run.failed || sessionEnded) return null;
  }
  // The replay uses the probes the environment answered: the random ones only when they passed.
  const replayed = randomProbesPassed ? [...probes.fixed, ...probes.random] : probes.fixed;
  const trajectories: string[] = [];
  for (const [index, seed] of seeds.entries()) {
    try {
      trajectories.push(await trajectory(session, seed, replayed));
    } catch (error) {
      const { detail, line } = describeError(error);
      run.fail("deterministic", `playing the probe trajectory of ${index < 2 ? `seed ${seed}` : "a secret seed"} failed: ${detail}`, line);
      return null;
    }
  }
  return { probes: replayed, trajectories };
}

function checkTools(tools: ToolSchema[] | null): string {
  if (!tools || tools.length === 0) throw new CheckFailure("get_tools() returned no tools; a tool-use environment needs at least one tool_<name> method");
  const names = new Set<string>();
  tools.forEach((tool, index) => {
    const name = (tool as { function?: { name?: unknown } }).function?.name;
    if (tool.type !== "function" || typeof name !== "string" || name.length === 0) {
      throw new CheckFailure(`get_tools() entry ${index} is not {"type": "function", "function": {"name": ...}}`);
    }
    if (names.has(name)) throw new CheckFailure(`get_tools() declares the tool "${name}" twice`);
    names.add(name);
  });
  return `get_tools() declares ${[...names].join(", ")}`;
}
