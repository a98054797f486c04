// The gguf trainer's emulation of llama.cpp's CPU rounding (resources/trainers/spade_llama_rounding.py,
// the agreement check's verification mode): its quantisers, flash attention's one-chunk path against
// a transcription of ggml's loop, its modes, and that only the logprobs command takes a rounding.
// Tested in Python with Debian's torch: tests/fixtures/trainers/test_spade_llama_rounding.py.
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { pythonHasTorch } from "../../main/training/resolveTrainerPython.js";

const python = "/usr/bin/python3";
const hasTorch = pythonHasTorch(python);
if (!hasTorch) console.warn(`trainerLlamaRounding tests skipped: ${python} cannot import torch (apt-get install python3-torch)`);
const root = resolve(import.meta.dirname, "..", "..");

describe.skipIf(!hasTorch)("spade_llama_rounding.py", () => {
  it("passes its unit tests (python3 -m unittest test_spade_llama_rounding)", () => {
    const result = spawnSync(python, ["-m", "unittest", "-v", "test_spade_llama_rounding"], {
      cwd: resolve(root, "tests/fixtures/trainers"),
      env: { ...process.env, PYTHONPATH: resolve(root, "resources/trainers"), PYTHONDONTWRITEBYTECODE: "1" },
      encoding: "utf8",
    });
    const report = result.stderr;
    expect(report, report).toMatch(/\nOK\s*$/);
    expect(result.status, report).toBe(0);
    for (const name of ["QuantiserTest", "AttentionTest", "ModeTest"]) expect(report).toContain(name);
    expect(Number(/Ran (\d+) tests/.exec(report)?.[1])).toBeGreaterThanOrEqual(7);
  });
});
