// The reference trainer cannot train here (no GPU, no PyPI): it must at least compile and handle its arguments.
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
  });

  it("reads the export manifest and exits 2 when there is nothing to train on (before loading any model)", () => {
    const dataset = join(scratch, "dataset");
    mkdirSync(dataset);
    writeFileSync(join(dataset, "manifest.json"), JSON.stringify({ files: [{ path: "trl-sft.jsonl", lines: 0 }] }));
    writeFileSync(join(dataset, "trl-sft.jsonl"), "");
    const result = spawnSync("python3", [script, "--dataset", dataset, "--base-model", "none", "--output-dir", join(scratch, "out")], { env, encoding: "utf8" });
    expect(result.status).toBe(2);
    expect(result.stdout).toContain("trl-sft.jsonl (0 lines)");
    expect(result.stdout).toContain("nothing to train on");
  });
});
