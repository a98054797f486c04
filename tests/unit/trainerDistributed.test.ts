// A training round on several ranks (torchrun, gloo on this CPU) equals the round on one process:
// tests/fixtures/trainers/step/test_spade_distributed.py trains stories260K with the gguf trainer's
// one-shot form on 1 and on 2 ranks, two rounds, and compares the adapters and Adam's moments.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { pythonHasTorch } from "../../main/training/resolveTrainerPython.js";

const python = "/usr/bin/python3";
const root = resolve(import.meta.dirname, "..", "..");
const model = resolve(root, "../shared/models/stories260K.gguf");
const ready = pythonHasTorch(python) && existsSync("/usr/bin/torchrun") && existsSync(model);
if (!ready) console.warn(`trainerDistributed skipped: needs ${python} with torch, /usr/bin/torchrun and ${model}`);

describe.skipIf(!ready)("data-parallel training rounds", () => {
  it("2 CPU ranks take the single process's step over two rounds (python3 -m unittest test_spade_distributed)", () => {
    const result = spawnSync(python, ["-m", "unittest", "-v", "test_spade_distributed"], {
      cwd: resolve(root, "tests/fixtures/trainers/step"),
      env: { ...process.env, PYTHONPATH: resolve(root, "resources/trainers"), PYTHONDONTWRITEBYTECODE: "1", SPADE_TEST_MODEL: model },
      encoding: "utf8",
      timeout: 600_000,
    });
    expect(result.stderr, result.stderr).toMatch(/\nOK\s*$/);
    // the two-rank test ran (it is skipped without the model or torchrun)
    expect(result.stderr).toMatch(/test_two_ranks_take_the_single_process_step_over_two_rounds .*\.\.\. ok/);
  }, 620_000);
});
