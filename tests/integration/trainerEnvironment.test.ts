// The trainer's Python, checked (issue 20 §4): `spade trainer check` and `spade trainer setup`
// through the built CLI, and a run that will train refusing before rollout 0.
import { spawnSync } from "node:child_process";
import { devNull, tmpdir } from "node:os";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { RunController } from "../../main/selfplay/RunController.js";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { addEnvSetMembers } from "../../main/store/queries/envSets.js";
import { getMetrics } from "../../main/store/queries/metrics.js";
import { getRun } from "../../main/store/queries/runs.js";
import { checkTrainerEnvironment } from "../../main/training/checkTrainerEnvironment.js";
import { pythonHasTorch } from "../../main/training/resolveTrainerPython.js";

const root = resolve(import.meta.dirname, "..", "..");
const cli = join(root, "out", "engine", "main", "cli", "spade.js");
const python = "/usr/bin/python3";
const hasTorch = pythonHasTorch(python);
const stories = resolve(root, "..", "shared", "models", "stories260K.gguf");
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-trainer-env-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function spade(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", timeout: 300_000, env: { ...process.env, ...env } });
}

describe.skipIf(!hasTorch)("checkTrainerEnvironment", () => {
  it("reports the interpreter, torch, the device and its free memory, and that stories260K trains", async () => {
    const report = await checkTrainerEnvironment({ python, model: stories });
    expect(report.problems).toEqual([]);
    expect(report.source).toBe("training.python");
    expect(report.executable).toBe(python);
    expect(report.packages.torch).toMatch(/^\d+\.\d+/);
    expect(report.packages.numpy).toMatch(/^\d+\.\d+/);
    expect(report.device.kind).toBe("cpu");
    expect(report.device.freeBytes).toBeGreaterThan(0);
    expect(report.device.totalBytes).toBeGreaterThanOrEqual(report.device.freeBytes!);
    expect(report.gguf?.architectures).toContain("llama");
    expect(report.gguf?.tensorTypes).toEqual(expect.arrayContaining(["F32", "F16", "Q8_0"]));
    expect(report.model).toMatchObject({ architecture: "llama", tensorTypes: ["F32"], trainable: true });
  });

  it("names the architecture of a model file the gguf trainer does not train", () => {
    const path = join(dir, "gpt2.gguf");
    const write = `import sys, numpy as np; sys.path.insert(0, ${JSON.stringify(join(root, "resources", "trainers"))}); from model import spade_gguf; spade_gguf.write_gguf(${JSON.stringify(path)}, {"general.architecture": "gpt2"}, [("token_embd.weight", np.zeros((4, 8), np.float32))])`;
    expect(spawnSync(python, ["-c", write], { encoding: "utf8" }).status).toBe(0);
    return checkTrainerEnvironment({ python, model: path }).then((report) => {
      expect(report.model).toMatchObject({ architecture: "gpt2", trainable: false });
      expect(report.problems).toEqual([`${path}: architecture 'gpt2' is not one the gguf trainer trains (llama, qwen2, qwen3); use the hf trainer`]);
    });
  });

  it("the hf trainer without transformers and PEFT is refused with the setup command", async () => {
    const report = await checkTrainerEnvironment({ python, trainer: "hf" });
    if (report.packages.transformers && report.packages.peft) return; // a machine that has them
    expect(report.problems.join("\n")).toMatch(/the hf trainer needs (transformers|peft).*spade trainer setup --hf/);
  });
});

describe("checkTrainerEnvironment without a usable interpreter", () => {
  it("an interpreter that does not exist is a problem naming it and the fix, not a throw", async () => {
    const report = await checkTrainerEnvironment({ python: join(dir, "no-such-python") });
    expect(report.executable).toBeNull();
    expect(report.problems).toHaveLength(1);
    expect(report.problems[0]).toContain(`cannot run ${join(dir, "no-such-python")} (training.python): it does not exist`);
    expect(report.problems[0]).toContain("spade trainer setup");
  });
});

describe.skipIf(!existsSync(cli))("spade trainer check / setup", () => {
  it.skipIf(!hasTorch)("check --json prints the report and exits 0 when the trainer can run", () => {
    const result = spade(["trainer", "check", "--python", python, "--model", stories, "--json"]);
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ python, source: "training.python", trainer: "gguf", problems: [], model: { trainable: true } });
    const text = spade(["trainer", "check", "--python", python]);
    expect(text.stdout).toMatch(/^python: \/usr\/bin\/python3 \(training\.python, Python 3\.\d+/m);
    expect(text.stdout).toMatch(/^device: cpu \(CPU\), free memory [\d.]+ GiB of [\d.]+ GiB$/m);
    expect(text.stdout).toMatch(/^blas: (OpenBLAS [\d.]+, \w+ kernels|not OpenBLAS)/m);
    expect(text.stdout).toContain("ready: the gguf trainer can run");
  });

  it("check exits 1 and says what is missing for an interpreter that cannot train", () => {
    const result = spade(["trainer", "check", "--python", join(dir, "missing-python")]);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("not ready:");
    expect(result.stdout).toContain("does not exist");
    expect(spade(["trainer", "check", "--trainer", "tf"]).status).toBe(2);
  });

  it("setup where the package index is unreachable fails naming the step, the index and the ways round it", () => {
    const venv = join(dir, "managed");
    const unreachable = "http://127.0.0.1:9/simple";
    // No pip configuration (this machine's local wheel folders) and an index nothing listens on.
    const result = spade(["trainer", "setup", "--dir", venv, "--index-url", unreachable, "--json"], { PIP_CONFIG_FILE: devNull, PIP_FIND_LINKS: "", PIP_EXTRA_INDEX_URL: "", PIP_DEFAULT_TIMEOUT: "3" });
    expect(result.status, result.stderr).toBe(1);
    const answer = JSON.parse(result.stdout);
    expect(answer).toMatchObject({ ok: false, step: "pip" });
    expect(answer.error).toContain(`pip could not install torch, numpy, gguf into ${venv} from ${unreachable}`);
    expect(answer.error).toContain(`this machine does not seem to reach ${unreachable}`);
    expect(answer.error).toContain("set training.python or SPADE_PYTHON");
    expect(result.stderr).toContain(answer.error);
    // The venv itself was made: a later setup with a reachable index only runs pip.
    expect(existsSync(join(venv, "bin", "python"))).toBe(true);
  }, 300_000);
});

describe.skipIf(!existsSync(stories))("a run that will train checks the trainer before rollout 0", () => {
  let db: WritableDb;
  beforeAll(() => {
    db = openDatabase(join(dir, "run.sqlite"));
    addEnvSetMembers(db, "words", [{ code: "class WordEnv:\n    pass\n", source: "test", skill: "Storytelling" }]);
  });
  afterAll(() => db.close());

  it("an unusable training.python fails the run with the fix and no iteration spent", async () => {
    const missing = join(dir, "nowhere", "python3");
    const config = parseRunConfig(
      {
        db: join(dir, "run.sqlite"), seed: 1, iterations: 1, envsPerIteration: 1, plays: 2, hintPlays: 0, maxTurns: 1, canary: false,
        backend: { kind: "llama", modelPath: stories, gpu: false, threads: 1, contextSize: 256, sequences: 1 },
        corpus: null,
        designer: { kind: "fixed", set: "words" },
        memory: { enabled: false, novelty: false },
        training: { every: 1, trainer: "gguf", python: missing },
      },
      "test",
    );
    const controller = new RunController({ db });
    const { runId } = await controller.start(config);
    expect(await controller.wait(runId)).toBe("failed");
    const error = getRun(db, runId)?.error ?? "";
    expect(error).toContain(`training: the trainer's Python (${missing}, from training.python) cannot train`);
    expect(error).toContain("spade trainer setup");
    expect(getMetrics(db, runId)).toEqual([]);
  }, 120_000);
});
