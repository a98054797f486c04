// The output layer's memory is flat in the sequence length for both trainers (issue 20 §1): no tensor
// of trained positions x vocabulary is made in the forward or the backward pass, for the gguf trainer
// on stories260K and the hf trainer on the transformers / PEFT stand-ins, and the hf trainer's chunked
// log-probs are its model's own (tests/fixtures/trainers/step/test_output_layer.py, with Debian's torch).
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { pythonHasTorch } from "../../main/training/resolveTrainerPython.js";

const python = "/usr/bin/python3";
const hasTorch = pythonHasTorch(python);
const root = resolve(import.meta.dirname, "..", "..");

describe.skipIf(!hasTorch)("the trainers' output layer", () => {
  it("holds at most outputChunkTokens positions x vocabulary, whatever the line's length", () => {
    const fixtures = resolve(root, "tests/fixtures/trainers");
    const result = spawnSync(python, ["-m", "unittest", "-v", "test_output_layer"], {
      cwd: resolve(fixtures, "step"),
      env: { ...process.env, PYTHONPATH: resolve(fixtures, "fakehf"), SPADE_STORIES: resolve(root, "..", "shared", "models", "stories260K.gguf"), PYTHONDONTWRITEBYTECODE: "1" },
      encoding: "utf8",
    });
    expect(result.stderr).toMatch(/Ran 2 tests[\s\S]*\nOK\s*$/);
    expect(result.status, result.stderr).toBe(0);
  });
});
