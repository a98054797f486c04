import { getLlama, NoBinaryFoundError, type Llama, type LlamaLogLevel } from "node-llama-cpp";
import type { GpuChoice } from "../../../shared/backendConfig.js";

export interface LlamaRuntimeOptions {
  /** Defaults to "auto". */
  gpu?: GpuChoice;
  /** Defaults to `defaultThreads()` of the loaded runtime. */
  threads?: number;
  /** Defaults to "never". */
  build?: "never" | "auto";
  /** Defaults to "error". */
  logLevel?: `${LlamaLogLevel}`;
}

/**
 * One core fewer than the math cores (at least 1, at most 8): llama.cpp's worker threads spin, and
 * when they compete with other work for the cores (environment processes, the engine, another
 * test) generation collapses. Measured on a busy 2-core machine with stories260K: 1 thread 449
 * tokens/s, 2 threads 11 tokens/s.
 */
export function defaultThreads(llama: Llama): number {
  return Math.max(1, Math.min(8, llama.cpuMathCores - 1));
}

export class LlamaRuntimeError extends Error {
  override name = "LlamaRuntimeError";
}

/**
 * node-llama-cpp's runtime for the requested GPU, with a thread budget shared by every context
 * of this runtime (generation and embedding contexts together never oversubscribe the CPU).
 */
export async function loadLlamaRuntime(options: LlamaRuntimeOptions = {}): Promise<Llama> {
  const gpu = options.gpu ?? "auto";
  let llama: Llama;
  try {
    llama = await getLlama({
      gpu,
      build: options.build ?? "never",
      logLevel: (options.logLevel ?? "error") as LlamaLogLevel,
      maxThreads: options.threads ?? 1,
      progressLogs: false,
    });
  } catch (error) {
    const reason = error instanceof NoBinaryFoundError ? "no prebuilt llama.cpp binary for it loads on this machine" : (error as Error).message;
    const hint = gpu === "auto" || gpu === false ? "" : '; is that GPU and its driver present? gpu "auto" falls back to the CPU';
    throw new LlamaRuntimeError(`cannot start llama.cpp with gpu ${JSON.stringify(gpu)}: ${reason}${hint}`);
  }
  llama.maxThreads = options.threads ?? defaultThreads(llama);
  return llama;
}
