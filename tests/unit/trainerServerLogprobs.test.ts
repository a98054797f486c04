// The servers' log-prob definitions in the trainers' round (a batch line's sampling.logprobs: vLLM's
// raw log-probs, SGLang's tempered ones, llama.cpp's sampling transform), converted to the
// reference's truncated importance weight; tested in Python with Debian's torch:
// tests/fixtures/trainers/step/test_spade_server_logprobs.py.
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { pythonHasTorch } from "../../main/training/resolveTrainerPython.js";

const python = "/usr/bin/python3";
const hasTorch = pythonHasTorch(python);
if (!hasTorch) console.warn(`trainerServerLogprobs tests skipped: ${python} cannot import torch (apt-get install python3-torch)`);
const root = resolve(import.meta.dirname, "..", "..");

describe.skipIf(!hasTorch)("a round over lines sampled by vLLM, SGLang or llama.cpp", () => {
  it("passes test_spade_server_logprobs (python3 -m unittest)", () => {
    const result = spawnSync(python, ["-m", "unittest", "-v", "test_spade_server_logprobs"], {
      cwd: resolve(root, "tests/fixtures/trainers/step"),
      env: { ...process.env, PYTHONPATH: resolve(root, "resources/trainers"), PYTHONDONTWRITEBYTECODE: "1" },
      encoding: "utf8",
    });
    expect(result.stderr, result.stderr).toMatch(/\nOK\s*$/);
    expect(result.stderr).toContain("ServerDefinitionTest");
    expect(Number(/Ran (\d+) tests/.exec(result.stderr)?.[1])).toBeGreaterThanOrEqual(6);
  });
});
