import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { resourcePath } from "../paths.js";
import { resolveTrainerPython } from "../training/resolveTrainerPython.js";
import { trainerAllocatorEnv } from "../training/trainerAllocatorEnv.js";

/** One random-weight model's round: measured and predicted peak memory, trained tokens/s (null where the round failed: see error). */
export type TrainerMemoryRow = {
  /** Size and tensor type, e.g. "10M Q4_K". */
  label: string;
  size: string | null;
  /** The tensor type of its matrices (a K-quant's rows that are not whole 256-value blocks get llama.cpp's fallback type). */
  type: string | null;
  parameters: number | null;
  measuredPeakBytes: number | null;
  predictedPeakBytes: number | null;
  /** measured / predicted. */
  ratio: number | null;
  trainedTokensPerSec: number | null;
  /** The round's CPU seconds and minor page faults: its cost, robust to other processes' load (the fixed mmap threshold's price is in the faults). */
  cpuSeconds: number | null;
  pageFaults: number | null;
  /** glibc's mmap threshold the round ran with (the trainer worker's, trainerAllocatorEnv). */
  mmapThreshold: string | null;
  error: string | null;
};

export interface TrainerMemoryOptions {
  /** Sequences per round, their tokens and trained tokens. Defaults to 4 x 256 tokens, 128 trained. */
  lines?: number;
  length?: number;
  trained?: number;
  /** PyTorch CPU threads. Defaults to 1. */
  threads?: number;
  /** Tensor types of the models. Defaults to F16, Q8_0 and Q4_K. */
  types?: string[];
  /** Sizes of the suite to run. Defaults to 10M, 50M and 200M. */
  sizes?: string[];
}

/**
 * The gguf trainer on random-weight models of about 10M, 50M and 200M parameters (real layer shapes,
 * resources/trainers/model/spade_random_model.py) in F16, Q8_0 and Q4_K: one round each in its own process, its peak memory
 * measured (the kernel's resident high-water mark above the worker's state before a round: the model loaded, a small
 * round run, glibc's heap trimmed; glibc's mmap threshold fixed as the trainer worker's, trainerAllocatorEnv) and predicted
 * by the memory model (runtime/spade_memory.py). The lines are sampled as the
 * agent samples (top-k 20, top-p 0.95), so the log-prob check's sort is part of the round.
 */
export async function trainerMemoryBench(options: TrainerMemoryOptions = {}): Promise<TrainerMemoryRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "spade-bench-trainer-memory-"));
  try {
    const args = [resourcePath("trainers", "bench_memory.py"), "--suite", dir, "--lines", String(options.lines ?? 4), "--length", String(options.length ?? 256), "--trained", String(options.trained ?? 128), "--threads", String(options.threads ?? 1), "--types", (options.types ?? ["F16", "Q8_0", "Q4_K"]).join(","), "--sizes", (options.sizes ?? ["10M", "50M", "200M"]).join(",")];
    const { stdout } = await promisify(execFile)(resolveTrainerPython(), args, { maxBuffer: 16 * 1024 * 1024, env: { ...process.env, ...trainerAllocatorEnv } });
    const rows = (JSON.parse(stdout) as { models: Array<Partial<TrainerMemoryRow> & { label: string }> }).models;
    return rows.map((row) => ({
      label: row.label,
      size: row.size ?? null,
      type: row.type ?? null,
      parameters: row.parameters ?? null,
      measuredPeakBytes: row.measuredPeakBytes ?? null,
      predictedPeakBytes: row.predictedPeakBytes ?? null,
      ratio: row.ratio ?? null,
      trainedTokensPerSec: row.trainedTokensPerSec ?? null,
      cpuSeconds: row.cpuSeconds ?? null,
      pageFaults: row.pageFaults ?? null,
      mmapThreshold: row.mmapThreshold ?? null,
      error: row.error ?? null,
    }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
