// The gguf trainer's memory model holds against the real peak (issue 20 §1): a round of a random-weight
// model of real layer shapes, measured in its own process (resources/trainers/bench_memory.py: the
// kernel's exact resident high-water mark), lands within 15% of spade_memory.py's prediction; and the
// output layer's measured memory is flat in the sequence length, set by the chunk. A change to the
// trainer that moves the peak, or to the model that no longer follows it, fails here.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pythonHasTorch } from "../../main/training/resolveTrainerPython.js";

const python = "/usr/bin/python3";
const hasTorch = pythonHasTorch(python);
const script = resolve(import.meta.dirname, "../../resources/trainers/bench_memory.py");
const dir = mkdtempSync(join(tmpdir(), "spade-memory-model-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function bench<T>(args: string[]): T {
  const done = spawnSync(python, [script, ...args], { encoding: "utf8", env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
  expect(done.status, done.stderr).toBe(0);
  return JSON.parse(done.stdout) as T;
}

type OutputLayer = { positions: number; measuredBytes: number; predictedBytes: number; ratio: number };

describe.skipIf(!hasTorch)("the trainer's memory model", () => {
  it("predicts a 10M-parameter Q8_0 round's peak within 15%", () => {
    const { models } = bench<{ models: Array<{ label: string; ratio: number; measuredPeakBytes: number; predictedPeakBytes: number; error?: string }> }>(["--suite", dir, "--sizes", "10M", "--types", "Q8_0"]);
    expect(models).toHaveLength(1);
    const row = models[0]!;
    expect(row.error, row.error).toBeUndefined();
    expect(row.ratio, `${row.label}: ${row.measuredPeakBytes} measured vs ${row.predictedPeakBytes} predicted`).toBeGreaterThanOrEqual(0.85);
    expect(row.ratio, `${row.label}: ${row.measuredPeakBytes} measured vs ${row.predictedPeakBytes} predicted`).toBeLessThanOrEqual(1.15);
  }, 300_000);

  it("measures the output layer flat in the sequence length, bounded by the chunk, as predicted", () => {
    // 70k entries x 128 positions: each float array of a chunk is its own mapping (the heap's layout of smaller ones varies between runs)
    const layer = (positions: number, chunk: number) => bench<OutputLayer>(["--output-layer", String(positions), "--vocab", "70000", "--dim", "64", "--hyper", JSON.stringify({ outputChunkTokens: chunk })]);
    const short = layer(256, 128);
    const long = layer(1024, 128);
    for (const row of [short, long]) {
      expect(row.ratio, `${row.positions} positions: ${row.measuredBytes} measured vs ${row.predictedBytes} predicted`).toBeGreaterThanOrEqual(0.85);
      expect(row.ratio, `${row.positions} positions: ${row.measuredBytes} measured vs ${row.predictedBytes} predicted`).toBeLessThanOrEqual(1.15);
    }
    // four times the positions, about the same memory: before, the sampling transform's chunks each kept theirs to the backward pass
    expect(long.measuredBytes / short.measuredBytes).toBeLessThan(1.2);
    // and the chunk sets it: a quarter of the rows, well under half the memory
    expect(layer(1024, 32).measuredBytes / long.measuredBytes).toBeLessThan(0.5);
  }, 300_000);
});
