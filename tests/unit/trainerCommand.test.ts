// The trainer hook's pure parts: command templates, log-line conventions, output discovery, the gate.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { promotionGate } from "../../main/eval/promotionGate.js";
import { findAdapterOutput } from "../../main/training/findAdapterOutput.js";
import { parseTrainerLine } from "../../main/training/parseTrainerLine.js";
import { renderTrainerCommand } from "../../main/training/renderTrainerCommand.js";
import { TrainerCommandError } from "../../main/training/TrainerCommandError.js";
import { TrainerFailedError } from "../../main/training/TrainerFailedError.js";

const values = { dataset: "/data/run 1", baseModel: "Qwen/Qwen3-0.6B", previousAdapter: "", outputDir: "/out/it's" };

describe("renderTrainerCommand", () => {
  it("fills an argv template element by element, without a shell", () => {
    const command = renderTrainerCommand(["python", "train.py", "--data={dataset}", "{outputDir}", '{"json": 1}'], values);
    expect(command.argv).toEqual(["python", "train.py", "--data=/data/run 1", "/out/it's", '{"json": 1}']);
    expect(command.shellCommand).toBeNull();
    expect(command.display).toBe(`python train.py '--data=/data/run 1' '/out/it'\\''s' '{"json": 1}'`);
  });

  it("single-quotes every value in a shell template", () => {
    const command = renderTrainerCommand("accelerate launch train.py --data {dataset} --out {outputDir} --prev {previousAdapter}", values);
    expect(command.argv).toBeNull();
    expect(command.shellCommand).toBe(`accelerate launch train.py --data '/data/run 1' --out '/out/it'\\''s' --prev ''`);
  });

  it("refuses an unknown placeholder by name", () => {
    expect(() => renderTrainerCommand(["train", "{datset}"], values)).toThrow(TrainerCommandError);
    expect(() => renderTrainerCommand(["train", "{datset}"], values)).toThrow(/trainer\.command: unknown placeholder \{datset\} \(known: \{dataset\}, \{baseModel\}, \{previousAdapter\}, \{outputDir\}\)/);
  });
});

describe("parseTrainerLine", () => {
  it("reads PROGRESS (clamped to 0..1) and METRIC lines and ignores the rest", () => {
    expect(parseTrainerLine("PROGRESS 0.25")).toEqual({ progress: 0.25 });
    expect(parseTrainerLine("  progress 1.5 ")).toEqual({ progress: 1 });
    expect(parseTrainerLine("METRIC train/loss 1.5e-2")).toEqual({ metric: "train/loss", value: 0.015 });
    expect(parseTrainerLine("step 3 PROGRESS 0.5")).toBeNull();
    expect(parseTrainerLine("PROGRESS soon")).toBeNull();
  });
});

describe("findAdapterOutput", () => {
  const dir = () => mkdtempSync(join(tmpdir(), "spade-out-"));

  it("finds the one GGUF file, also in a subfolder", () => {
    const out = dir();
    mkdirSync(join(out, "final"));
    writeFileSync(join(out, "final", "lora.gguf"), "x");
    expect(findAdapterOutput(out)).toEqual({ kind: "gguf", path: join(out, "final", "lora.gguf") });
  });

  it("falls back to a PEFT adapter folder", () => {
    const out = dir();
    mkdirSync(join(out, "checkpoint"));
    writeFileSync(join(out, "checkpoint", "adapter_config.json"), "{}");
    expect(findAdapterOutput(out)).toEqual({ kind: "peft", dir: join(out, "checkpoint") });
  });

  it("refuses several GGUF files or none, saying what it found", () => {
    const out = dir();
    writeFileSync(join(out, "a.gguf"), "x");
    writeFileSync(join(out, "b.gguf"), "x");
    expect(() => findAdapterOutput(out)).toThrow(/wrote 2 GGUF files .*\(a\.gguf, b\.gguf\)/);
    expect(() => findAdapterOutput(dir())).toThrow(TrainerFailedError);
  });
});

describe("promotionGate", () => {
  it("promotes an adapter that is not worse than its parent by more than the margin", () => {
    expect(promotionGate(0.5, 0.5, 0).promoted).toBe(true);
    expect(promotionGate(0.46, 0.5, 0.05)).toMatchObject({ promoted: true });
    expect(promotionGate(0.44, 0.5, 0.05)).toMatchObject({ promoted: false });
    expect(promotionGate(0.44, 0.5, 0.05).reason).toMatch(/below the parent's 0\.5000 by 0\.0600, more than the margin of 0\.05/);
    expect(promotionGate(0.7, 0.5, 0).delta).toBeCloseTo(0.2, 12);
  });
});

describe("the trainer block of a run config", () => {
  const base = { db: "w.sqlite", seed: 1, iterations: 1, envsPerIteration: 1, plays: 2, hintPlays: 2, maxTurns: 3, backend: { kind: "llama", modelPath: "m.gguf" }, corpus: null };

  it("is optional and reads back with its defaults", () => {
    expect(parseRunConfig(base, "run.json")).not.toHaveProperty("trainer");
    const config = parseRunConfig({ ...base, trainer: { command: ["python", "train.py"], eval: { suite: "gsm8k.jsonl" } } }, "run.json");
    expect(config.trainer).toEqual({
      command: ["python", "train.py"], convert: null, env: {}, cwd: null, baseModel: null, formats: ["trl-sft", "grpo"], includeHinted: false, timeoutMs: null,
      eval: { suite: "gsm8k.jsonl", limit: null, margin: 0, maxTokens: 1024 },
    });
    expect(parseRunConfig(JSON.parse(JSON.stringify(config)), "run.json")).toEqual(config);
  });

  it("names the bad key", () => {
    expect(() => parseRunConfig({ ...base, trainer: {} }, "run.json")).toThrow("run.json: trainer.command: required key is missing");
    expect(() => parseRunConfig({ ...base, trainer: { command: "t", formats: ["csv"] } }, "run.json")).toThrow(/trainer\.formats\[0\]: expected one of "grpo"/);
    expect(() => parseRunConfig({ ...base, trainer: { command: "t", env: { A: 1 } } }, "run.json")).toThrow("run.json: trainer.env.A: expected a string of at most 4096 characters, got 1");
    expect(() => parseRunConfig({ ...base, trainer: { command: "t", gpu: 1 } }, "run.json")).toThrow(/trainer\.gpu: unknown key/);
  });
});
