import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LlamaModel, Token } from "node-llama-cpp";
import { loadLlamaRuntime } from "../llm/llama/loadLlamaRuntime.js";
import { resourcePath } from "../paths.js";
import { ggufTrainerTensorTypes } from "../training/checkGgufTrainerTypes.js";
import { resolveTrainerPython } from "../training/resolveTrainerPython.js";
import { TrainerWorker } from "../training/TrainerWorker.js";
import type { BenchValue } from "./BenchSection.js";

/** The shape of the random-weight models whose training speed is measured (about 13M parameters with stories260K's vocabulary). */
const speedShape = { dim: 512, ffn: 1536, layers: 4 };
const speedTypes = ["F16", "Q8_0", "Q4_K"] as const;
const fullSoftmax = { temperature: 1, topK: 0, topP: 1, minP: 0 };

interface SampledLine {
  tokens: number[];
  mask: Array<0 | 1>;
  behaviorLogprobs: Array<number | null>;
}

/**
 * The trainer on every tensor type it dequantises (the `quantisation` part of the training
 * section): for a random-weight llama model per type (`make_random_model.py`, stories260K's
 * tokenizer, logits of a real model's spread), the agreement of the trainer's recomputed log-probs
 * with llama.cpp's sampled ones: mean and max |diff| of the trainer's exact function (what training
 * uses; llama.cpp's CPU backend rounds activations to 8-bit blocks against a quantised weight and
 * accumulates attention in f16), `emulated` with that rounding emulated (the `llama-cpu` verification
 * mode), and `floor`, the emulation against itself with every rounded value moved by float noise
 * (`llama-cpu-perturbed`): how close any emulation can come, since a value within float noise of a
 * rounding step rounds either way; and trained tokens/s
 * on ~13M-parameter F16, Q8_0 and Q4_K models, with the weights held quantised (the default) and
 * as a full-precision copy.
 */
export async function measureQuantisation(tokenizerModel: string, log: (line: string) => void): Promise<Record<string, BenchValue>> {
  const dir = mkdtempSync(join(tmpdir(), "spade-bench-quants-"));
  const python = resolveTrainerPython();
  const llama = await loadLlamaRuntime({ gpu: false, threads: 1 });
  const workers: TrainerWorker[] = [];
  const worker = async (weights: "quantized" | "full") => {
    const started = await TrainerWorker.start({ python, threads: 1, device: "cpu", extraArgs: ["--weights", weights] });
    workers.push(started);
    return started;
  };
  try {
    const quantized = await worker("quantized");
    const full = await worker("full");
    const agreement: Record<string, BenchValue> = {};
    for (const type of ggufTrainerTensorTypes) {
      const path = writeModel(python, tokenizerModel, join(dir, `agree-${type}.gguf`), type, []);
      const batch = await sampleBatch(llama, path, join(dir, `agree-${type}.jsonl`), 4, 32);
      const { mismatch } = await quantized.logprobs({ batch, baseModel: path, output: join(dir, `agree-${type}.json`) });
      const emulated = (await quantized.logprobs({ batch, baseModel: path, output: join(dir, `agree-${type}-emulated.json`), rounding: "llama-cpu" })).logprobs;
      const perturbed = (await quantized.logprobs({ batch, baseModel: path, output: join(dir, `agree-${type}-perturbed.json`), rounding: "llama-cpu-perturbed" })).logprobs;
      const recorded = readBehaviour(batch);
      const emulatedDiff = absDiff(emulated, recorded);
      const floor = absDiff(perturbed, emulated);
      agreement[type] = { meanAbsDiff: mismatch?.meanAbsDiff ?? null, maxAbsDiff: mismatch?.maxAbsDiff ?? null, tokens: mismatch?.tokens ?? 0, emulated: emulatedDiff, floor };
      log(`training: ${type} log-probs vs llama.cpp: mean |diff| ${mismatch?.meanAbsDiff.toExponential(2)}, max ${mismatch?.maxAbsDiff.toExponential(2)}; emulated ${emulatedDiff.meanAbsDiff.toExponential(2)} / ${emulatedDiff.maxAbsDiff.toExponential(2)} (floor ${floor.meanAbsDiff.toExponential(2)})`);
    }
    const trainedTokensPerSec: Record<string, BenchValue> = {};
    const shapeArgs = ["--dim", String(speedShape.dim), "--ffn", String(speedShape.ffn), "--layers", String(speedShape.layers)];
    for (const type of speedTypes) {
      const path = writeModel(python, tokenizerModel, join(dir, `speed-${type}.gguf`), type, shapeArgs);
      const batch = await sampleBatch(llama, path, join(dir, `speed-${type}.jsonl`), 8, 32);
      const row: Record<string, number> = {};
      for (const [weights, trainer] of [["quantized", quantized], ["full", full]] as const) {
        const hyper = { learningRate: 1e-3, rank: 8, alpha: 16, epochs: 1, seed: 1, maxTokensPerBatch: 4096 };
        const result = await trainer.train({ round: 1, batch, baseModel: path, output: join(dir, `speed-${type}-${weights}.gguf`), hyper });
        row[weights] = result.metrics.tokens / Math.max(result.metrics.seconds, 1e-9);
      }
      trainedTokensPerSec[type] = row;
      log(`training: ${type} ${speedShape.dim}x${speedShape.layers}: ${row.quantized!.toFixed(1)} trained tok/s with quantised weights, ${row.full!.toFixed(1)} with a full-precision copy`);
    }
    return { agreement, trainedTokensPerSec, speedModel: `${speedShape.layers} blocks, dim ${speedShape.dim}, FFN ${speedShape.ffn}` };
  } finally {
    await Promise.all(workers.map((w) => w.dispose().catch(() => undefined)));
    await llama.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The recorded behaviour log-probs of a batch file, per line and token (null where untrained). */
function readBehaviour(batchPath: string): Array<Array<number | null>> {
  const [, ...rows] = readFileSync(batchPath, "utf8").trim().split("\n");
  return rows.map((row) => (JSON.parse(row) as SampledLine).behaviorLogprobs);
}

/** Mean and max |a - b| over the tokens both have a value for. */
function absDiff(a: Array<Array<number | null>>, b: Array<Array<number | null>>): { meanAbsDiff: number; maxAbsDiff: number } {
  const diffs = a.flatMap((row, i) => row.flatMap((x, t) => (x === null || b[i]?.[t] == null ? [] : [Math.abs(x - b[i]![t]!)])));
  return { meanAbsDiff: diffs.reduce((sum, x) => sum + x, 0) / Math.max(diffs.length, 1), maxAbsDiff: Math.max(0, ...diffs) };
}

function writeModel(python: string, tokenizerModel: string, path: string, type: string, extra: string[]): string {
  execFileSync(python, [resourcePath("trainers", "make_random_model.py"), tokenizerModel, path, type, ...extra], { env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
  return path;
}

/** Samples `count` completions with llama.cpp (plain softmax, recorded log-probs, alternating advantages) and writes them as a batch. */
async function sampleBatch(llama: Awaited<ReturnType<typeof loadLlamaRuntime>>, modelPath: string, batchPath: string, count: number, maxTokens: number): Promise<string> {
  const model: LlamaModel = await llama.loadModel({ modelPath });
  try {
    const context = await model.createContext({ contextSize: 256, threads: 1 });
    const sequence = context.getSequence();
    const prompt = [model.tokens.bos!, ...model.tokenize("Once upon a time", false)];
    const lines: SampledLine[] = [];
    for (let i = 0; i < count; i++) {
      await sequence.clearHistory();
      const completion: Token[] = [];
      const logprobs: number[] = [];
      for await (const { token, confidence } of sequence.evaluateWithMetadata(prompt, { confidence: true }, { ...fullSoftmax, seed: 100 + i })) {
        completion.push(token);
        logprobs.push(Math.log(confidence));
        if (completion.length >= maxTokens || token === model.tokens.eos) break;
      }
      const tokens = [...prompt, ...completion];
      lines.push({ tokens, mask: tokens.map((_, t) => (t >= prompt.length ? 1 : 0)), behaviorLogprobs: tokens.map((_, t) => (t >= prompt.length ? logprobs[t - prompt.length]! : null)) });
    }
    const header = { format: "spade-batch", version: 1, roles: { agent: count, designer: 0 }, "left out": {} };
    const rows = lines.map((line, i) => ({ role: "agent", ...line, advantage: i % 2 ? 1 : -1, ref: { runId: 1, environmentId: 1, episodeId: i, turn: 0, attempt: null }, adapter: null, sampling: fullSoftmax }));
    writeFileSync(batchPath, [header, ...rows].map((row) => JSON.stringify(row)).join("\n") + "\n");
    await context.dispose();
    return batchPath;
  } finally {
    await model.dispose();
  }
}
