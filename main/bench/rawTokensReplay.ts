import type { Token } from "node-llama-cpp";
import type { GpuChoice } from "../../shared/backendConfig.js";
import type { SamplingOptions } from "../../shared/llm.js";
import { loadLlamaRuntime } from "../llm/llama/loadLlamaRuntime.js";

/** One model call as the engine made it: the prompt tokens it evaluated and the tokens it sampled. */
export interface ReplayTurn {
  promptTokenIds: number[];
  tokenIds: number[];
  sampling: SamplingOptions;
  /** The reply ended before maxTokens (an end-of-generation token was sampled after the last token). */
  endedByModel: boolean;
}

export interface ReplayOptions {
  contextSize: number;
  /** Defaults to the LlamaBackend default. */
  threads?: number;
  /** Defaults to "auto", as in LlamaBackend. */
  gpu?: GpuChoice;
}

/**
 * Replays recorded turns through raw node-llama-cpp on one sequence, doing only the model's work the
 * engine's turn needed: keep the cached prefix the new prompt shares, evaluate the rest of the prompt,
 * sample, then feed the recorded tokens back one by one (each evaluated, each followed by a sample,
 * with the same sampling settings), as the engine's generation did. Returns the milliseconds each
 * turn took, the process CPU time of all turns, and how many prompt tokens had to be evaluated
 * (the rest was the sequence's cached prefix); model loading is not timed. The difference to the engine's wall time is the engine's
 * own cost (prompt rendering, tokenising, sandbox steps, recording, SQLite).
 */
export async function replayTurnsRaw(modelPath: string, turns: ReplayTurn[], options: ReplayOptions): Promise<{ ms: number[]; cpuMs: number; evaluatedPromptTokens: number }> {
  const llama = await loadLlamaRuntime({ gpu: options.gpu, threads: options.threads });
  try {
    const model = await llama.loadModel({ modelPath });
    const context = await model.createContext({ sequences: 1, contextSize: options.contextSize });
    const sequence = context.getSequence();
    const times: number[] = [];
    const cpuStart = process.cpuUsage();
    let evaluatedPromptTokens = 0;
    for (const turn of turns) {
      const prompt = turn.promptTokenIds as Token[];
      const start = performance.now();
      const shared = sequence.compareContextTokens(prompt).firstDifferentIndex;
      const keep = Math.min(shared, prompt.length - 1);
      if (keep < sequence.nextTokenIndex) await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);
      evaluatedPromptTokens += prompt.length - keep;
      const { temperature = 0.6, topK = 0, topP = 1, minP = 0, seed } = turn.sampling;
      const steps = sequence.evaluateWithMetadata(prompt.slice(keep), { confidence: true }, { temperature, topK, topP, minP, seed });
      await steps.next();
      const forced = turn.endedByModel ? turn.tokenIds : turn.tokenIds.slice(0, -1);
      for (const token of forced) await steps.next(token as Token);
      await steps.return();
      times.push(performance.now() - start);
    }
    const cpu = process.cpuUsage(cpuStart);
    return { ms: times, cpuMs: (cpu.user + cpu.system) / 1000, evaluatedPromptTokens };
  } finally {
    await llama.dispose();
  }
}
