// The trainer gives the GPU back between rounds (issue 20 §3): runtime/spade_device.py reaches every tensor
// of the gguf trainer's model (tests/fixtures/trainers/runtime/test_spade_device.py, with Debian's torch).
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { pythonHasTorch } from "../../main/training/resolveTrainerPython.js";

const python = "/usr/bin/python3";
const hasTorch = pythonHasTorch(python);
const root = resolve(import.meta.dirname, "..", "..");

describe.skipIf(!hasTorch)("runtime/spade_device.py", () => {
  it("moves every tensor of a loaded stories260K model and back, ties kept, outputs unchanged", () => {
    const result = spawnSync(python, ["-m", "unittest", "-v", "test_spade_device"], {
      cwd: resolve(root, "tests/fixtures/trainers/runtime"),
      env: { ...process.env, SPADE_STORIES: resolve(root, "..", "shared", "models", "stories260K.gguf"), PYTHONDONTWRITEBYTECODE: "1" },
      encoding: "utf8",
    });
    expect(result.stderr).toMatch(/Ran 2 tests[\s\S]*\nOK\s*$/);
    expect(result.status, result.stderr).toBe(0);
  });
});
