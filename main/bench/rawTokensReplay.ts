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

export interface ReplayedTurn {
  ms: number;
  /** Process CPU time of the replay. */
  cpuMs: number;
  /** Prompt tokens that had to be evaluated (the rest was the sequence's cached prefix). */
  evaluatedPromptTokens: number;
}

export interface RawReplayer {
  replay(turn: ReplayTurn): Promise<ReplayedTurn>;
  dispose(): Promise<void>;
}

/**
 * Raw node-llama-cpp on one sequence, doing only the model's work an engine turn needed: keep the
 * cached prefix the new prompt shares, evaluate the rest of the prompt, sample, then feed the
 * recorded tokens back one by one (each evaluated, each followed by a sample, with the same
 * sampling settings), as the engine's generation did. Turns must come in the engine's order (the
 * cached prefix carries over). Model loading is not timed.
 */
export async function createRawReplayer(modelPath: string, options: ReplayOptions): Promise<RawReplayer> {
  const llama = await loadLlamaRuntime({ gpu: options.gpu, threads: options.threads });
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ sequences: 1, contextSize: options.contextSize });
  const sequence = context.getSequence();
  return {
    async replay(turn) {
      const prompt = turn.promptTokenIds as Token[];
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      const shared = sequence.compareContextTokens(prompt).firstDifferentIndex;
      const keep = Math.min(shared, prompt.length - 1);
      if (keep < sequence.nextTokenIndex) await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);
      const { temperature = 0.6, topK = 0, topP = 1, minP = 0, seed } = turn.sampling;
      const steps = sequence.evaluateWithMetadata(prompt.slice(keep), { confidence: true }, { temperature, topK, topP, minP, seed });
      await steps.next();
      const forced = turn.endedByModel ? turn.tokenIds : turn.tokenIds.slice(0, -1);
      for (const token of forced) await steps.next(token as Token);
      await steps.return();
      const ms = performance.now() - start;
      const cpu = process.cpuUsage(cpuStart);
      return { ms, cpuMs: (cpu.user + cpu.system) / 1000, evaluatedPromptTokens: prompt.length - keep };
    },
    dispose: () => llama.dispose(),
  };
}
