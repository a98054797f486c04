import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resourcePath } from "../paths.js";
import { SandboxPool } from "../sandbox/SandboxPool.js";
import { median } from "../util/median.js";
import { validateEnvironment } from "../validator/validateEnvironment.js";
import type { BenchSection, BenchValue } from "./BenchSection.js";

const GAME = resourcePath("environments", "code_breaker.py");
const ACTIONS = ["\\boxed{0123}", "\\boxed{4567}", "\\boxed{8901}", "\\boxed{2345}", "\\boxed{6789}", "\\boxed{1357}", "\\boxed{9}", "\\boxed{0246}"];
const STEPS = 3000;
const VALIDATIONS = 7;
// The pause before each validation: the Designer's generation time, during which the sandbox
// prepares its spare interpreter.
const VALIDATION_PAUSE_MS = 1500;

// The same loop as the sandbox measurement, in the machine's CPython: reset, steps, a new seed
// after each episode.
const NATIVE_DRIVER = `
import json, random, sys, time
code = open(sys.argv[1]).read()
namespace = {"__name__": "spade_environment"}
exec(compile(code, "environment.py", "exec"), namespace)
cls = next(value for key, value in namespace.items() if isinstance(value, type) and key.endswith("Env"))
actions, count = json.loads(sys.argv[2]), int(sys.argv[3])
random.seed(0)
env = cls()
seed = 0
random.seed(seed)
env.reset(seed=seed)
start = time.perf_counter()
for index in range(count):
    observation, reward, terminated, truncated, info = env.step(actions[index % len(actions)])
    if terminated or truncated:
        seed += 1
        random.seed(seed)
        env.reset(seed=seed)
print(json.dumps({"stepsPerSec": count / (time.perf_counter() - start)}))
`;

const p50 = (values: number[]): number => median(values) ?? Number.NaN;
/** Fresh processes started one after another for the start-up profile. */
const FRESH_STARTS = 5;

const round = (value: number, digits = 3) => Number(value.toFixed(digits));

function nativeStepsPerSec(log: (line: string) => void): number {
  const result = spawnSync("python3", ["-c", NATIVE_DRIVER, GAME, JSON.stringify(ACTIONS), String(STEPS * 10)], { encoding: "utf8", timeout: 120_000 });
  if (result.status !== 0) {
    log(`native python3 unavailable: ${result.error?.message ?? result.stderr.trim().split("\n").at(-1)}`);
    return Number.NaN;
  }
  return (JSON.parse(result.stdout) as { stepsPerSec: number }).stepsPerSec;
}

async function measureSteps(pool: SandboxPool, code: string): Promise<{ stepsPerSec: number; stepP50Ms: number }> {
  const session = await pool.open(code);
  const times: number[] = [];
  try {
    let seed = 0;
    await session.reset(seed);
    const started = performance.now();
    for (let index = 0; index < STEPS; index++) {
      const before = performance.now();
      const step = await session.step(ACTIONS[index % ACTIONS.length] as string);
      times.push(performance.now() - before);
      if (step.terminated || step.truncated) await session.reset(++seed);
    }
    return { stepsPerSec: STEPS / ((performance.now() - started) / 1000), stepP50Ms: p50(times) };
  } finally {
    await session.close();
  }
}

/**
 * Fresh processes started one at a time (the snapshot cache already written): the CPU the whole
 * process tree used from spawn to ready, its resident memory then, and where the start went, per
 * phase, as the child measured it.
 */
async function measureFreshStarts(log: (line: string) => void): Promise<Record<string, BenchValue>> {
  // Recycling off: every never-used process here is a new start.
  const pool = await SandboxPool.create({ size: 1, prewarm: 1, recycleProcesses: false });
  try {
    for (let index = 1; index < FRESH_STARTS; index++) {
      const session = await pool.open(`class FreshEnv:\n    def reset(self, seed=None):\n        return "fresh ${index}", {}\n    def step(self, action):\n        return "", 0.0, True, False, {}\n`, { freshProcess: true });
      await session.close();
      await pool.prewarm(1);
    }
    const profile = pool.startProfile();
    const phases = Object.fromEntries(profile.phases.map((phase) => [phase.name, { cpuMs: round(phase.cpuMs, 1), wallMs: round(phase.wallMs, 1) }]));
    log(`fresh sandbox process (${profile.starts} starts, one at a time): p50 ${profile.cpuMsP50 ?? "?"} ms CPU, ${Math.round(profile.rssMbP50 ?? Number.NaN)} MiB resident (${Math.round(profile.pssMbP50 ?? Number.NaN)} MiB proportional); by phase (CPU/wall ms): ${profile.phases.map((phase) => `${phase.name} ${round(phase.cpuMs, 1)}/${round(phase.wallMs, 1)}`).join(", ")}`);
    return { freshProcessCpuMs: profile.cpuMsP50, freshProcessRssMiB: profile.rssMbP50 === null ? null : Math.round(profile.rssMbP50), freshProcessPssMiB: profile.pssMbP50 === null ? null : Math.round(profile.pssMbP50), freshProcessPhases: phases };
  } finally {
    await pool.dispose();
  }
}

/**
 * A fresh sandbox by recycling (`sandbox.recycleProcesses`): a game played in a process, its plays
 * announced done, the process put back to its pristine state for the next game. The child's CPU
 * and wall ms per recycle (medians), beside a fresh start's.
 */
async function measureRecycles(log: (line: string) => void): Promise<Record<string, BenchValue>> {
  const pool = await SandboxPool.create({ size: 1, prewarm: 0, recycleProcesses: true });
  try {
    for (let index = 0; index < FRESH_STARTS; index++) {
      const code = `import random\nclass RecycledEnv:\n    def reset(self, seed=None):\n        self.held = [random.random() for _ in range(10000)]\n        return "recycled ${index}", {}\n    def step(self, action):\n        return "", 0.0, True, False, {}\n`;
      const session = await pool.open(code);
      await session.reset(index);
      await session.close();
      pool.planPlays(code, 0);
      for (let waited = 0; pool.stats().processesRecycled <= index && waited < 30_000; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const stats = pool.stats();
    log(`fresh sandbox by recycling a process (${stats.processesRecycled} recycles, ${stats.processesStarted} processes started): p50 ${round(stats.recycleCpuMsP50 ?? Number.NaN, 1)} ms CPU, ${round(stats.recycleP50Ms ?? Number.NaN, 1)} ms wall`);
    return { recycleCpuMs: stats.recycleCpuMsP50 === null ? null : round(stats.recycleCpuMsP50, 1), recycleMs: stats.recycleP50Ms === null ? null : round(stats.recycleP50Ms, 1), recycles: stats.processesRecycled };
  } finally {
    await pool.dispose();
  }
}

/** `spade bench` section "sandbox": the step round trip, validation and start-up of the sandbox. */
export const sandboxBench: BenchSection = {
  name: "sandbox",
  async run(log) {
    // The first start writes the snapshot cache if there is none; the second is the cold start
    // every later process (a CLI run, a replaced sandbox) pays.
    let started = performance.now();
    const first = await SandboxPool.create({ size: 1 });
    log(`first start: ${Math.round(performance.now() - started)} ms (cold when no snapshot was cached yet); confinement: ${first.confinement}`);
    await first.dispose();
    started = performance.now();
    const pool = await SandboxPool.create({ size: 1 });
    const coldStartMs = performance.now() - started;
    try {
      const code = readFileSync(GAME, "utf8");
      const { stepsPerSec, stepP50Ms } = await measureSteps(pool, code);
      log(`${STEPS} steps of code_breaker through EnvSession.step: ${Math.round(stepsPerSec)} steps/s, p50 ${round(stepP50Ms)} ms`);
      const native = nativeStepsPerSec(log);
      log(`the same environment and actions in python3: ${Math.round(native)} steps/s`);
      const durations: number[] = [];
      for (let index = 0; index < VALIDATIONS; index++) {
        await new Promise((resolve) => setTimeout(resolve, VALIDATION_PAUSE_MS));
        const report = await validateEnvironment(pool, `${code}\n# variant ${index}\n`);
        if (!report.valid) throw new Error(`the benchmark game did not validate: ${report.error}`);
        durations.push(report.durationMs);
      }
      log(`validation of ${VALIDATIONS} new variants (fresh interpreter each, after a ${VALIDATION_PAUSE_MS} ms pause): p50 ${p50(durations)} ms`);
      const burst = performance.now();
      for (let index = 0; index < 5; index++) await validateEnvironment(pool, `${code}\n# burst ${index}\n`);
      log(`back-to-back validations of new code, no pause: ${Math.round((5 * 60_000) / (performance.now() - burst))} environments/minute on one sandbox`);
      // Plays of one environment: each after the first puts the pristine interpreter back.
      for (let index = 0; index < 8; index++) {
        const session = await pool.open(code);
        await session.reset(index);
        await session.close();
      }
      const stats = pool.stats();
      // A never-used process from a warm pool, as the loop gets one for each new environment.
      const warm = await SandboxPool.create({ size: 2 });
      let fresh: number | null;
      try {
        for (let index = 0; index < 9; index++) {
          await warm.prewarm(2);
          const session = await warm.open(`${code}\n# fresh ${index}\n`);
          await session.close();
        }
        fresh = warm.stats().freshProcessP50Ms;
      } finally {
        await warm.dispose();
      }
      log(`never-used process from the warm pool: p50 ${round(fresh ?? Number.NaN)} ms (one sandbox, validations back to back: ${round(stats.freshProcessP50Ms ?? Number.NaN)} ms); pristine state for the next play: p50 ${round(stats.playResetP50Ms ?? Number.NaN)} ms; memory per sandbox process: ${stats.memoryPerProcessMb} MiB`);
      const start = await measureFreshStarts(log);
      const recycled = await measureRecycles(log);
      return {
        ...start,
        ...recycled,
        stepsPerSec: Math.round(stepsPerSec),
        stepP50Ms: round(stepP50Ms),
        nativePythonStepsPerSec: Math.round(native),
        ratio: round(stepsPerSec / native, 4),
        validateMsP50: p50(durations),
        coldStartMs: Math.round(coldStartMs),
        freshProcessP50Ms: round(fresh ?? Number.NaN),
        playResetP50Ms: round(stats.playResetP50Ms ?? Number.NaN),
        memoryPerProcessMb: stats.memoryPerProcessMb,
        confinement: pool.confinement,
      };
    } finally {
      await pool.dispose();
    }
  },
};
