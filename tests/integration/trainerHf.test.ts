// The "hf" trainer (train_lora.py) on the same protocol. transformers and PEFT are not installable
// here: these tests run it against small stand-ins (tests/fixtures/trainers/fakehf, a tiny torch LM
// and a LoRA wrapper with PEFT's calls), which proves the trainer's own code (batch, loss, protocol,
// PEFT output, conversion step, parent adapter) but not the real libraries.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pythonHasTorch } from "../../main/training/resolveTrainerPython.js";
import { TrainerWorker } from "../../main/training/TrainerWorker.js";
import { writeBatch, type BatchLine } from "../fixtures/trainers/llamaBatch.js";

const python = "/usr/bin/python3";
const hasTorch = pythonHasTorch(python);
if (!hasTorch) console.warn(`trainerHf tests skipped: ${python} cannot import torch (apt-get install python3-torch)`);
const root = resolve(import.meta.dirname, "../..");
const script = join(root, "resources/trainers/train_lora.py");
const fakes = join(root, "tests/fixtures/trainers/fakehf");
const hyper = { learningRate: 0.05, rank: 2, alpha: 4, epochs: 2, seed: 3, targets: ["attn_q" as const, "ffn_up" as const] };

let dir: string;
let base: string;
let batch: string;
let lines: BatchLine[];

function line(tokens: number[], promptLength: number, advantage: number): BatchLine {
  return {
    role: "designer",
    tokens,
    mask: tokens.map((_, t) => (t >= promptLength ? 1 : 0)),
    behaviorLogprobs: tokens.map(() => null),
    advantage,
    ref: { runId: 1, environmentId: 1, episodeId: null, turn: null, attempt: 0 },
    adapter: null,
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "spade-trainer-hf-"));
  base = join(dir, "tiny-hf");
  mkdirSync(base);
  writeFileSync(join(base, "config.json"), JSON.stringify({ vocab_size: 40, hidden_size: 16, seed: 4 }));
  lines = [line([1, 5, 6, 7, 8, 9], 2, 1), line([1, 5, 10, 11, 12], 2, -1), line([1, 5, 6, 13], 2, 1), line([1, 5, 14, 15, 16, 17], 2, -1)];
  batch = join(dir, "batch.jsonl");
  writeBatch(batch, lines);
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!hasTorch)("train_lora.py (hf) with stand-in transformers / PEFT", () => {
  it("refuses clearly when transformers and peft are not installed, and stays alive", async () => {
    const worker = await TrainerWorker.start({ trainer: "hf", python, device: "cpu", threads: 1 });
    try {
      const refused = worker.train({ round: 1, batch, baseModel: base, output: join(dir, "none"), hyper });
      await expect(refused).rejects.toThrow(/the hf trainer needs transformers and peft \((peft|transformers) is not installed\): pip install -r resources\/trainers\/requirements.txt/);
      expect(worker.alive).toBe(true);
    } finally {
      await worker.dispose();
    }
  });

  it("trains on the token-exact batch, writes PEFT output (and a GGUF through the conversion step), continues from its parent", async () => {
    const convert = join(dir, "convert.py");
    // A stand-in for llama.cpp's convert_lora_to_gguf.py: checks its arguments, writes the outfile.
    writeFileSync(convert, `import sys, os\nargs = sys.argv[1:]\nassert args[0] == "--base" and os.path.exists(os.path.join(args[-1], "adapter_config.json")), args\nopen(args[args.index("--outfile") + 1], "w").write("GGUF")\n`);
    const worker = await TrainerWorker.start({ trainer: "hf", python, device: "cpu", threads: 1, env: { PYTHONPATH: fakes }, convertScript: convert });
    try {
      const steps: number[] = [];
      const first = await worker.train({ round: 1, batch, baseModel: base, output: join(dir, "r1.gguf"), hyper }, { onProgress: (p) => steps.push(p.step) });
      expect(steps).toEqual([1, 2]);
      expect(first.adapterPath).toBe(join(dir, "r1.gguf"));
      expect(readFileSync(first.adapterPath, "utf8")).toBe("GGUF");
      expect(JSON.parse(readFileSync(join(dir, "r1-peft", "adapter_config.json"), "utf8"))).toMatchObject({ r: 2, lora_alpha: 4, target_modules: ["q_proj", "up_proj"] });
      // null behaviour log-probs: on-policy, the first step's ratios are exactly 1
      expect(first.mismatch).toEqual({ type: "mismatch", meanAbsDiff: 0, maxAbsDiff: 0, tokens: 0 });
      expect(first.metrics.tokens).toBe(13);
      expect(first.metrics.loss).toBeLessThan(0.1);

      const before = await worker.logprobs({ batch, baseModel: base, output: join(dir, "lp0.json") });
      const after = await worker.logprobs({ batch, baseModel: base, adapter: join(dir, "r1-peft"), output: join(dir, "lp1.json") });
      const total = (rows: Array<Array<number | null>>, i: number) => rows[i]!.reduce<number>((s, x) => s + (x ?? 0), 0);
      lines.forEach((l, i) => {
        if (l.advantage > 0) expect(total(after.logprobs, i)).toBeGreaterThan(total(before.logprobs, i));
        else expect(total(after.logprobs, i)).toBeLessThan(total(before.logprobs, i));
      });
      expect(before.logprobs[0]!.slice(0, 2)).toEqual([null, null]);
      // llama.cpp's rounding is the gguf trainer's verification mode: the hf trainer refuses it, and goes on
      await expect(worker.logprobs({ batch, baseModel: base, output: join(dir, "lp2.json"), rounding: "llama-cpu" })).rejects.toThrow(/logprobs: rounding 'llama-cpu' is emulated by the gguf trainer only/);

      // round 2 from the GGUF path of round 1: the trainer finds the PEFT folder it was converted from
      const second = await worker.train({ round: 2, batch, baseModel: base, parentAdapter: first.adapterPath, output: join(dir, "r2.gguf"), hyper });
      expect(second.metrics.tokens).toBe(13);
      expect(readFileSync(join(dir, "r2-peft", "adapter_model.pt"))).not.toEqual(readFileSync(join(dir, "r1-peft", "adapter_model.pt")));
    } finally {
      await worker.dispose();
    }
  }, 60_000);

  it("a Hugging Face id as baseModel: the conversion gets the id's snapshot folder (its config.json), not the id", async () => {
    const hub = join(dir, "hub");
    mkdirSync(join(hub, "Qwen--Qwen3-4B-Instruct-2507"), { recursive: true });
    writeFileSync(join(hub, "Qwen--Qwen3-4B-Instruct-2507", "config.json"), JSON.stringify({ vocab_size: 40, hidden_size: 16, seed: 4 }));
    const convert = join(dir, "convert-id.py");
    // The stand-in conversion insists on what llama.cpp's script needs: --base is a folder with config.json.
    writeFileSync(convert, `import sys, os\nargs = sys.argv[1:]\nassert os.path.exists(os.path.join(args[1], "config.json")), args\nopen(args[args.index("--outfile") + 1], "w").write("GGUF " + args[1])\n`);
    const worker = await TrainerWorker.start({ trainer: "hf", python, device: "cpu", threads: 1, env: { PYTHONPATH: fakes, FAKE_HF_HUB: hub }, convertScript: convert });
    try {
      const trained = await worker.train({ round: 1, batch, baseModel: "Qwen/Qwen3-4B-Instruct-2507", output: join(dir, "id-r1.gguf"), hyper });
      expect(readFileSync(trained.adapterPath, "utf8")).toBe(`GGUF ${join(hub, "Qwen--Qwen3-4B-Instruct-2507")}`);
      const unknown = worker.train({ round: 2, batch, baseModel: "nobody/nothing", output: join(dir, "id-r2.gguf"), hyper });
      await expect(unknown).rejects.toThrow(/nobody\/nothing/);
    } finally {
      await worker.dispose();
    }
  }, 60_000);

  it("a transformers that ignores logits_to_keep (before 4.50) is detected: the same log-probs, and the log says so", async () => {
    // logits_to_keep is the path of a model whose output layer the trainer cannot take apart (FAKE_HF_OPAQUE: one that caps its logits)
    // The two take the output layer's product over a different number of rows (every position, or the kept ones),
    // and a BLAS kernel may sum a row's 16 products in another order for another row count: OpenBLAS's Haswell
    // kernels do here (the trained tokens' log-probs 2.4e-7 apart), its Prescott, SkylakeX and Cooperlake
    // ones not. Haswell's are the kernels of any CPU with AVX2 and FMA (OPENBLAS_CORETYPE), so the test sees the
    // difference wherever they can run.
    const cpu = existsSync("/proc/cpuinfo") ? readFileSync("/proc/cpuinfo", "utf8") : "";
    const env = { PYTHONPATH: fakes, FAKE_HF_OPAQUE: "1", ...(/\bavx2\b/.test(cpu) && /\bfma\b/.test(cpu) ? { OPENBLAS_CORETYPE: "Haswell" } : {}) };
    const logs: string[] = [];
    const ignoring = await TrainerWorker.start({ trainer: "hf", python, device: "cpu", threads: 1, env: { ...env, FAKE_HF_IGNORE_LOGITS_TO_KEEP: "1" }, onLog: (l) => logs.push(l) });
    const honouring = await TrainerWorker.start({ trainer: "hf", python, device: "cpu", threads: 1, env });
    try {
      const old = await ignoring.logprobs({ batch, baseModel: base, output: join(dir, "keep-ignored.json") });
      const current = await honouring.logprobs({ batch, baseModel: base, output: join(dir, "keep-honoured.json") });
      // The bound: two float32 sums of n products in any order differ by at most n x 2^-24 x the sum of their
      // magnitudes (Higham's gamma_n); here n = 16 and that sum is at most 1.75 (the stand-in's seed-4 weights on
      // this batch), so a logit moves by at most 16 x 2^-24 x 2, and a log-softmax by at most twice its inputs'
      // largest move. The smallest real error, the rows taken one position off, moves a trained token's
      // log-prob by 0.015 or more.
      const bound = 2 * 16 * 2 ** -24 * 2;
      expect(old.logprobs.map((row) => row.map((x) => x === null))).toEqual(current.logprobs.map((row) => row.map((x) => x === null)));
      const gaps = old.logprobs.flatMap((row, i) => row.map((x, t) => Math.abs((x ?? 0) - (current.logprobs[i]![t] ?? 0))));
      expect(Math.max(...gaps)).toBeLessThan(bound);
      expect(logs.join("\n")).toMatch(/this transformers ignores logits_to_keep \(got \d+ rows for \d+ positions\)/);
    } finally {
      await Promise.all([ignoring.dispose(), honouring.dispose()]);
    }
  }, 60_000);

  it("runs one-shot as the trainer hook's command: {dataset}/batch.jsonl to {outputDir}/peft with PROGRESS and METRIC lines", () => {
    const dataset = join(dir, "dataset");
    mkdirSync(dataset);
    writeFileSync(join(dataset, "manifest.json"), JSON.stringify({ files: [{ path: "batch.jsonl", lines: lines.length + 1 }] }));
    writeBatch(join(dataset, "batch.jsonl"), lines);
    const out = join(dir, "hook-out");
    const result = spawnSync(python, [script, "--dataset", dataset, "--base-model", base, "--output-dir", out, "--previous-adapter-dir", "", "--rank", "2", "--learning-rate", "0.01"], { env: { ...process.env, PYTHONPATH: fakes, PYTHONDONTWRITEBYTECODE: "1" }, encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("batch.jsonl (5 lines)");
    expect(result.stdout).toMatch(/^PROGRESS 1\.0000$/m);
    expect(result.stdout).toMatch(/^METRIC clippedFraction 0(\.0)?$/m);
    expect(existsSync(join(out, "peft", "adapter_config.json"))).toBe(true);
  });
});
