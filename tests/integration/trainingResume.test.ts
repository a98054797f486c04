// `spade run` with training inside the run, as a real child process on stories260K with the
// "gguf" trainer: kill -9 while a training round runs, then --resume, must end with the report of
// an uninterrupted run (timings aside), no adapter registered twice, and every play recorded with
// the adapter it was sampled with.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReportRun, RunReport } from "../../shared/runReport.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { addEnvSetMembers } from "../../main/store/queries/envSets.js";
import { pythonHasTorch } from "../../main/training/resolveTrainerPython.js";
import { startCli } from "../support/startCli.js";

const python = "/usr/bin/python3";
const hasTorch = pythonHasTorch(python);
if (!hasTorch) console.warn(`trainingResume skipped: ${python} cannot import torch (apt-get install python3-torch)`);
const stories = resolve(import.meta.dirname, "../../../shared/models/stories260K.gguf");
const storyWord = readFileSync(resolve(import.meta.dirname, "../../resources/environments/story_word.py"), "utf8");

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-train-resume-"));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A workspace holding the fixed pool, and a run config training after every iteration. */
function prepare(name: string): string {
  mkdirSync(join(dir, name));
  const db = openDatabase(join(dir, name, "ws.sqlite"));
  addEnvSetMembers(db, "story-words", [{ code: storyWord, source: "test", skill: "Storytelling" }]);
  db.close();
  const path = join(dir, name, "run.json");
  writeFileSync(path, JSON.stringify({
    db: "ws.sqlite", seed: 5, iterations: 2, envsPerIteration: 1, plays: 12, hintPlays: 0, maxTurns: 1, canary: false,
    backend: { kind: "llama", modelPath: stories, gpu: false, threads: 1, contextSize: 512, sequences: 1 },
    corpus: null,
    designer: { kind: "fixed", set: "story-words" },
    memory: { enabled: false, novelty: false },
    agent: { temperature: 1, maxTokens: 16 },
    training: { every: 1, trainer: "gguf", python, threads: 1, learningRate: 0.003, rank: 4, alpha: 8, epochs: 1 },
  }));
  return path;
}

const start = (args: string[]) => startCli(args, { detached: true });

function runningRound(db: string): boolean {
  try {
    const handle = openDatabase(db, { readonly: true });
    try {
      return handle.prepare("SELECT count(*) FROM training_rounds WHERE status = 'running' AND metrics LIKE '%batch%'").pluck().get() === 1;
    } finally {
      handle.close();
    }
  } catch {
    return false;
  }
}

async function report(db: string): Promise<ReportRun> {
  const { code, stdout, stderr } = await start(["report", "--db", db, "--json"]).done;
  expect(code, stderr).toBe(0);
  return (JSON.parse(stdout) as RunReport).runs[0]!;
}

/** Everything but row ids, timings, paths into the workspace, and the rounds' float metrics (compared apart). */
function outcome(run: ReportRun) {
  return {
    environments: run.environments.map(({ id: _id, episodes, ...env }) => ({ ...env, episodes: episodes.map(({ id: _episodeId, ...episode }) => episode) })),
    trainingRounds: run.trainingRounds.map(({ metrics: _metrics, ...round }) => round),
  };
}

const timingKeys = new Set(["seconds", "wallSeconds", "tokensPerSec", "batch"]);
/** Wall times (every phase's `...Seconds` included) differ between any two runs. */
const timing = { has: (key: string) => timingKeys.has(key) || key.endsWith("Seconds") };

/** A redone round's torch arithmetic is not bit-identical across processes: its metrics agree to float noise. */
function expectSameMetrics(actual: Record<string, unknown>, expected: Record<string, unknown>, where: string): void {
  const keys = Object.keys(expected).filter((key) => !timing.has(key));
  expect(Object.keys(actual).filter((key) => !timing.has(key)).sort(), where).toEqual([...keys].sort());
  for (const key of keys) {
    const [a, b] = [actual[key], expected[key]];
    if (typeof b === "number") expect(Math.abs((a as number) - b), `${where}.${key}: ${String(a)} vs ${b}`).toBeLessThanOrEqual(1e-3 + 1e-2 * Math.abs(b));
    else if (typeof b === "object" && b !== null && !Array.isArray(b)) expectSameMetrics(a as Record<string, unknown>, b as Record<string, unknown>, `${where}.${key}`);
    else expect(a, `${where}.${key}`).toEqual(b);
  }
}

describe.skipIf(!hasTorch)("spade run with training: kill -9 during a round, then --resume", () => {
  it("redoes the round and ends as an uninterrupted run would, no adapter registered twice", async () => {
    const whole = await start(["run", "--config", prepare("whole")]).done;
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stderr).toMatch(/training round 1 completed: run-1-r0/);

    const killedDb = join(dir, "killed", "ws.sqlite");
    const config = prepare("killed");
    const first = start(["run", "--config", config]);
    const deadline = Date.now() + 240_000;
    while (!runningRound(killedDb) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(runningRound(killedDb)).toBe(true);
    // kill -9 the CLI and its trainer worker (which runs in its own process group).
    const children = execFileSync("ps", ["-o", "pid=", "--ppid", String(first.child.pid)], { encoding: "utf8" }).split("\n").map(Number).filter((pid) => pid > 0);
    process.kill(-first.child.pid!, "SIGKILL");
    for (const pid of children) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // not a group leader, or gone already
      }
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone already
      }
    }
    await first.done;
    const partial = await report(killedDb);
    expect(partial.trainingRounds.map((round) => round.status)).toEqual(["running"]);

    const second = await start(["run", "--config", config, "--resume"]).done;
    expect(second.code, second.stderr).toBe(0);

    const expected = await report(join(dir, "whole", "ws.sqlite"));
    const resumed = await report(killedDb);
    expect(resumed.status).toBe("completed");
    expect(resumed.trainingRounds.map((round) => [round.round, round.afterIteration, round.status])).toEqual([[0, 0, "completed"], [1, 1, "completed"]]);
    expect(outcome(resumed)).toEqual(outcome(expected));
    resumed.trainingRounds.forEach((round, i) => expectSameMetrics(round.metrics, expected.trainingRounds[i]!.metrics, `round ${i} metrics`));
    const [r0] = resumed.trainingRounds;
    for (const env of resumed.environments) {
      for (const episode of env.episodes) expect(episode.adapterId).toBe(env.iteration === 0 ? null : r0!.adapterId);
    }
    const db = openDatabase(killedDb, { readonly: true });
    try {
      expect(db.prepare("SELECT name FROM adapters ORDER BY id").pluck().all()).toEqual(["run-1-r0", "run-1-r1"]);
    } finally {
      db.close();
    }
    // Each adapter has its optimiser state beside it, written once (the next round continues from it).
    expect(readdirSync(join(dir, "killed", "adapters")).sort()).toEqual(["run-1-r0.gguf", "run-1-r0.optim.pt", "run-1-r1.gguf", "run-1-r1.optim.pt"]);
  }, 600_000);
});
