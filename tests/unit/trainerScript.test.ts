// The hf trainer's entry point without torch, transformers or PEFT (the python3 on PATH here has none):
// it compiles, documents the trainer hook's placeholders, and refuses an export without a batch before importing anything.
// Training itself: tests/integration/trainerHf.test.ts.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const script = join(import.meta.dirname, "..", "..", "resources", "trainers", "train_lora.py");
const scratch = mkdtempSync(join(tmpdir(), "spade-trainer-script-"));
const env = { ...process.env, PYTHONPYCACHEPREFIX: join(scratch, "pycache") };

describe("resources/trainers/train_lora.py", () => {
  it("passes python3 -m py_compile", () => {
    expect(() => execFileSync("python3", ["-m", "py_compile", script], { env, stdio: "pipe" })).not.toThrow();
  });

  it("documents its placeholders in --help", () => {
    const help = execFileSync("python3", [script, "--help"], { env, encoding: "utf8" });
    for (const placeholder of ["{dataset}", "{baseModel}", "{outputDir}", "{previousAdapterDir}"]) expect(help).toContain(placeholder);
    expect(help).toContain("--rank");
    expect(help).toContain("--worker");
  });

  it("reads the export manifest and exits 2 when it has no batch.jsonl (before loading any model)", () => {
    const dataset = join(scratch, "dataset");
    mkdirSync(dataset);
    writeFileSync(join(dataset, "manifest.json"), JSON.stringify({ files: [{ path: "trl-sft.jsonl", lines: 0 }] }));
    writeFileSync(join(dataset, "trl-sft.jsonl"), "");
    const result = spawnSync("python3", [script, "--dataset", dataset, "--base-model", "none", "--output-dir", join(scratch, "out")], { env, encoding: "utf8" });
    expect(result.status).toBe(2);
    expect(result.stdout).toContain("trl-sft.jsonl (0 lines)");
    expect(result.stdout).toContain(`nothing to train on: ${join(dataset, "batch.jsonl")} does not exist`);
  });
});
