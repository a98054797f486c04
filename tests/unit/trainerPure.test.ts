// The trainers' pure parts (batch parsing, masking, the sampling transform, the GRPO/TIS loss, the
// GGUF reader's tensor types, the dequantisers on hand-built blocks, the quantised weights; the
// round's update: aggregation, steps, optimiser state, log-prob definitions, chunked output layer;
// the memory model; the agreement check's emulation of llama.cpp's CPU rounding), tested in Python with Debian's torch: tests/fixtures/trainers/test_spade_*.py.
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

describe.skipIf(!hasTorch)("spade_grpo.py, spade_gguf.py, spade_quants.py, spade_weights.py and spade_llama_rounding.py", () => {
  it("pass their unit tests (python3 -m unittest test_spade_grpo test_spade_step test_spade_memory test_spade_quants test_spade_weights test_spade_llama_rounding test_spade_attention test_spade_blas)", () => {
    const result = spawnSync(python, ["-m", "unittest", "-v", "test_spade_grpo", "test_spade_step", "test_spade_memory", "test_spade_quants", "test_spade_weights", "test_spade_llama_rounding", "test_spade_attention", "test_spade_blas"], {
      cwd: resolve(root, "tests/fixtures/trainers"),
      env: { ...process.env, PYTHONPATH: resolve(root, "resources/trainers"), PYTHONDONTWRITEBYTECODE: "1" },
      encoding: "utf8",
    });
    const report = result.stderr;
    expect(report, report).toMatch(/\nOK\s*$/);
    expect(result.status, report).toBe(0);
    // every test class ran (a skipped or renamed file would not count as a pass)
    for (const name of ["BatchTest", "HyperTest", "LossTest", "SamplingTest", "GgufTest", "AggregationTest", "StepCountTest", "OptimizerStateTest", "DefinitionTest", "ChunkedLogprobTest", "MemoryModelTest", "WorkingCopyTest", "RandomModelTest", "TableTest", "FloatTest", "LegacyTest", "KQuantTest", "WeightsTest", "QuantiserTest", "AttentionTest", "ModeTest", "FusedAttentionTest", "KernelChoiceTest", "PrepareTest", "LoadedTest"]) expect(report).toContain(name);
    expect(Number(/Ran (\d+) tests/.exec(report)?.[1])).toBeGreaterThanOrEqual(65);
  });

  it("have one set of defaults: the trainer's standalone hyperparameters are the run config's", () => {
    const code = "import json, spade_grpo; print(json.dumps(spade_grpo.DEFAULT_HYPER))";
    const result = spawnSync(python, ["-c", code], { cwd: resolve(root, "resources/trainers"), env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" }, encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    const trainer = JSON.parse(result.stdout) as Record<string, unknown>;
    for (const [key, value] of Object.entries(defaultTrainingHyper)) expect(trainer[key], key).toEqual(value);
    // the trainer-only keys (per round or per model, never a run config's)
    expect(Object.keys(trainer).filter((key) => !(key in defaultTrainingHyper)).sort()).toEqual(["mismatchTolerance", "seed", "targets"]);
  });

  it("dequantise the tensor types the engine checks a base model against before rollout 0", () => {
    const result = spawnSync(python, ["-c", "import json, spade_quants; print(json.dumps(spade_quants.supported_type_names()))"], {
      env: { ...process.env, PYTHONPATH: resolve(root, "resources/trainers"), PYTHONDONTWRITEBYTECODE: "1" },
      encoding: "utf8",
    });
    expect(result.status, result.stderr).toBe(0);
    expect([...(JSON.parse(result.stdout) as string[])].sort()).toEqual([...ggufTrainerTensorTypes].sort());
  });
});
