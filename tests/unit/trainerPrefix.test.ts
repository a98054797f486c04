// Each shared prompt once (issue 20, Benchmarks: the round's cost): a prompt several batch lines share
// goes through the gguf trainer's model once, with the hidden states and LoRA gradients of separate
// passes (tests/fixtures/trainers/model/test_spade_prefix.py on stories260K, with Debian's torch).
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { pythonHasTorch } from "../../main/training/resolveTrainerPython.js";

const python = "/usr/bin/python3";
const hasTorch = pythonHasTorch(python);
const root = resolve(import.meta.dirname, "..", "..");

describe.skipIf(!hasTorch)("model/spade_prefix.py", () => {
  it("computes each shared prompt once, with the same hidden states and gradients as separate passes", () => {
    const result = spawnSync(python, ["-m", "unittest", "-v", "test_spade_prefix"], {
      cwd: resolve(root, "tests/fixtures/trainers/model"),
      env: { ...process.env, SPADE_STORIES: resolve(root, "..", "shared", "models", "stories260K.gguf"), PYTHONDONTWRITEBYTECODE: "1" },
      encoding: "utf8",
    });
    expect(result.stderr).toMatch(/Ran 4 tests[\s\S]*\nOK\s*$/);
    expect(result.status, result.stderr).toBe(0);
  });
});
