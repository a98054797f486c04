// The trainers' pure parts (batch parsing, the line protocol's commands, masking, the sampling transform, the GRPO/TIS loss, the
// GGUF reader's tensor types, the dequantisers on hand-built blocks, the quantised weights; the
// round's update: aggregation, steps, optimiser state, log-prob definitions, chunked output layer;
// the memory model; the agreement check's emulation of llama.cpp's CPU rounding), tested in Python with Debian's torch: tests/fixtures/trainers/{model,step,runtime,protocol}/test_*.py.
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ggufTrainerTensorTypes } from "../../main/training/checkGgufTrainerTypes.js";
import { pythonHasTorch } from "../../main/training/resolveTrainerPython.js";
import { defaultTrainingHyper } from "../../shared/trainingConfig.js";

const python = "/usr/bin/python3";
const hasTorch = pythonHasTorch(python);
if (!hasTorch) console.warn(`trainerPure tests skipped: ${python} cannot import torch (apt-get install python3-torch)`);
const root = resolve(import.meta.dirname, "..", "..");

/** The Python unit tests of each of the trainers' folders (tests/fixtures/trainers/<folder> mirrors resources/trainers/<folder>). */
const suites: Record<string, string[]> = {
  model: ["test_spade_quants", "test_spade_weights", "test_spade_llama_rounding", "test_spade_attention"],
  step: ["test_spade_grpo", "test_spade_step"],
  runtime: ["test_spade_memory", "test_spade_blas"],
  protocol: ["test_spade_protocol"],
};

describe.skipIf(!hasTorch)("the trainers' model/, step/, runtime/ and protocol/ modules (spade_grpo, spade_step, spade_gguf, spade_quants, spade_weights, spade_llama_rounding, spade_memory, spade_blas, spade_protocol)", () => {
  it("pass their unit tests (python3 -m unittest, per folder: model/ test_spade_quants test_spade_weights test_spade_llama_rounding test_spade_attention; step/ test_spade_grpo test_spade_step; runtime/ test_spade_memory test_spade_blas; protocol/ test_spade_protocol)", () => {
    const reports = Object.entries(suites).map(([folder, modules]) => {
      const result = spawnSync(python, ["-m", "unittest", "-v", ...modules], {
        cwd: resolve(root, "tests/fixtures/trainers", folder),
        env: { ...process.env, PYTHONPATH: resolve(root, "resources/trainers"), PYTHONDONTWRITEBYTECODE: "1" },
        encoding: "utf8",
      });
      expect(result.stderr, result.stderr).toMatch(/\nOK\s*$/);
      expect(result.status, result.stderr).toBe(0);
      return result.stderr;
    });
    const report = reports.join("\n");
    // every test class ran (a skipped or renamed file would not count as a pass)
    for (const name of ["BatchTest", "HyperTest", "LossTest", "SamplingTest", "GgufTest", "AggregationTest", "StepCountTest", "OptimizerStateTest", "DefinitionTest", "ChunkedLogprobTest", "MemoryModelTest", "WorkingCopyTest", "RandomModelTest", "TableTest", "FloatTest", "LegacyTest", "KQuantTest", "WeightsTest", "QuantiserTest", "AttentionTest", "ModeTest", "FusedAttentionTest", "KernelChoiceTest", "PrepareTest", "LoadedTest", "CommandTest"]) expect(report).toContain(name);
    expect(reports.map((one) => Number(/Ran (\d+) tests/.exec(one)?.[1])).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(65);
  });

  it("have one set of defaults: the trainer's standalone hyperparameters are the run config's", () => {
    const code = "import json\nfrom step import spade_grpo\nprint(json.dumps(spade_grpo.DEFAULT_HYPER))";
    const result = spawnSync(python, ["-c", code], { cwd: resolve(root, "resources/trainers"), env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" }, encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    const trainer = JSON.parse(result.stdout) as Record<string, unknown>;
    for (const [key, value] of Object.entries(defaultTrainingHyper)) expect(trainer[key], key).toEqual(value);
    // the trainer-only keys (per round or per model, never a run config's)
    expect(Object.keys(trainer).filter((key) => !(key in defaultTrainingHyper)).sort()).toEqual(["mismatchTolerance", "seed", "targets"]);
  });

  it("dequantise the tensor types the engine checks a base model against before rollout 0", () => {
    const result = spawnSync(python, ["-c", "import json\nfrom model import spade_quants\nprint(json.dumps(spade_quants.supported_type_names()))"], {
      env: { ...process.env, PYTHONPATH: resolve(root, "resources/trainers"), PYTHONDONTWRITEBYTECODE: "1" },
      encoding: "utf8",
    });
    expect(result.status, result.stderr).toBe(0);
    expect([...(JSON.parse(result.stdout) as string[])].sort()).toEqual([...ggufTrainerTensorTypes].sort());
  });
});
