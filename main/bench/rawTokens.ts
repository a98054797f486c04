import type { LlamaContextSequence, Token } from "node-llama-cpp";
import type { GpuChoice } from "../../shared/backendConfig.js";
import { checkModelFile } from "../llm/gguf/checkModelFile.js";
import { loadLlamaRuntime } from "../llm/llama/loadLlamaRuntime.js";

export interface RawTokensOptions {
  /** Tokens to generate in all, split evenly over the sequences. */
  tokens: number;
  /** Parallel sequences in one context, decoding in one batch. Defaults to 1. */
  sequences?: number;
  /** Defaults to the LlamaBackend default (one fewer than the physical cores, 1 to 8). */
  threads?: number;
  /** Defaults to "auto", as in LlamaBackend. */
  gpu?: GpuChoice;
  /** Prompt each sequence starts from. Defaults to "Once upon a time". */
  prompt?: string;
}

/**
 * Tokens per second that node-llama-cpp generates directly (no chat template, no engine), with
 * the sampling LlamaBackend uses by default (temperature 0.6, full distribution): the reference
 * figure the rollout engine's throughput is compared against. Generation continues past
 * end-of-generation tokens, so every sequence generates exactly its share. Model loading is not timed.
 */
export async function measureRawTokensPerSec(modelPath: string, options: RawTokensOptions): Promise<number> {
  const sequences = options.sequences ?? 1;
  const perSequence = Math.ceil(options.tokens / sequences);
  await checkModelFile(modelPath);
  const llama = await loadLlamaRuntime({ gpu: options.gpu, threads: options.threads });
  try {
    const model = await llama.loadModel({ modelPath });
    const prompt = model.tokenize(options.prompt ?? "Once upon a time");
    const contextSize = prompt.length + perSequence + 8;
    if (contextSize > model.trainContextSize) {
      throw new RangeError(`measureRawTokensPerSec: ${perSequence} tokens per sequence do not fit the model's context of ${model.trainContextSize}`);
    }
    const context = await model.createContext({ sequences, contextSize });
    const all = Array.from({ length: sequences }, () => context.getSequence());
    const start = performance.now();
    const counts = await Promise.all(all.map((sequence, i) => generate(sequence, prompt, perSequence, i)));
    const seconds = (performance.now() - start) / 1000;
    return counts.reduce((a, b) => a + b, 0) / seconds;
  } finally {
    await llama.dispose();
  }
}

async function generate(sequence: LlamaContextSequence, prompt: Token[], count: number, seed: number): Promise<number> {
  let generated = 0;
  for await (const _token of sequence.evaluate(prompt, { temperature: 0.6, topK: 0, topP: 1, minP: 0, seed, yieldEogToken: true })) {
    if (++generated >= count) break;
  }
  return generated;
}
