import type { LlamaContextSequence, Token } from "node-llama-cpp";
import type { FinishReason, SamplingOptions } from "../../../shared/llm.js";
import { PromptTooLongError } from "../PromptTooLongError.js";
import type { RenderedPrompt } from "./renderChatPrompt.js";

export interface Generation {
  /** The generated text with special tokens spelled out (`<think>`, `<|channel|>`, ...), cut before any stop text. */
  rawText: string;
  /** The same text without special tokens: the reply when it holds no reasoning or tool-call markup. */
  plainText: string;
  finishReason: FinishReason;
  /** Generated tokens: not the end-of-generation token, but including tokens that spell a stop text. */
  tokenIds: Token[];
  /** Probability of each generated token under the distribution it was sampled from. */
  tokenProbs: number[];
  /** Natural log of `tokenProbs` (0 for greedy sampling at temperature 0, a point mass). */
  tokenLogprobs: number[];
  /** The sampling settings used, defaults filled in. */
  samplingUsed: SamplingOptions;
}

export const defaultTemperature = 0.6;
export const defaultMaxTokens = 1024;
/** Unset topK/topP/minP sample from the full distribution (like vLLM and OpenAI), not node-llama-cpp's top-k 40 / top-p 0.95, so token probabilities are the policy's. */
const fullDistribution = { topK: 0, topP: 1, minP: 0 };

/**
 * Generates a reply for a rendered prompt on one sequence. With `reusePrefix` the sequence keeps the
 * prompt's longest cached prefix and evaluates only the rest (at least one token, for fresh logits),
 * so a multi-turn episode costs only its new tokens per turn; without it the prompt is evaluated
 * from scratch, which makes a seeded call on one sequence exactly reproducible.
 *
 * Behaviour log-probs: llama.cpp's sampler chain (top-k, then top-p, then min-p, then temperature,
 * then the seeded draw) leaves the kept candidates with their temperature-scaled logits;
 * node-llama-cpp's `confidence` is the softmax of those over the kept set, i.e. the probability the
 * draw gave the chosen token. Its log is the token's log-prob under the distribution it was sampled
 * from: `log p(t) = l_t/T - log sum_{j in kept} exp(l_j/T)`, with `kept` the top-k / top-p / min-p
 * survivors. At temperature 0 node-llama-cpp samples greedily, a point mass: log-prob 0.
 */
export async function generateOnSequence(
  sequence: LlamaContextSequence,
  prompt: RenderedPrompt,
  sampling: SamplingOptions,
  signal: AbortSignal,
  reusePrefix: boolean,
): Promise<Generation> {
  const { tokens } = prompt;
  if (tokens.length >= sequence.contextSize) throw new PromptTooLongError(tokens.length, sequence.contextSize, sequence.model.trainContextSize);
  const samplingUsed: SamplingOptions = {
    temperature: sampling.temperature ?? defaultTemperature,
    topK: sampling.topK ?? fullDistribution.topK,
    topP: sampling.topP ?? fullDistribution.topP,
    minP: sampling.minP ?? fullDistribution.minP,
    maxTokens: sampling.maxTokens ?? defaultMaxTokens,
    ...(sampling.stop && sampling.stop.length > 0 ? { stop: [...sampling.stop] } : {}),
    ...(sampling.seed !== undefined ? { seed: sampling.seed } : {}),
  };
  const greedy = samplingUsed.temperature! <= 0;
  const maxTokens = samplingUsed.maxTokens!;
  const stopTexts = [...prompt.stopTexts, ...(sampling.stop ?? [])].filter((text) => text.length > 0);
  const window = Math.max(0, ...stopTexts.map((text) => text.length)) + 1;
  const model = sequence.model;
  const tokenIds: Token[] = [];
  const tokenProbs: number[] = [];
  const tokenLogprobs: number[] = [];
  let finishReason: FinishReason = "stop";
  let stoppedByText = false;

  if (maxTokens <= 0 || signal.aborted) {
    return { rawText: "", plainText: "", finishReason: signal.aborted ? "abort" : "length", tokenIds, tokenProbs, tokenLogprobs, samplingUsed };
  }
  const shared = reusePrefix ? sequence.compareContextTokens(tokens).firstDifferentIndex : 0;
  const keep = Math.min(shared, tokens.length - 1);
  if (keep < sequence.nextTokenIndex) await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);

  const outputs = sequence.evaluateWithMetadata(
    tokens.slice(keep),
    { confidence: true },
    { temperature: samplingUsed.temperature, topK: samplingUsed.topK, topP: samplingUsed.topP, minP: samplingUsed.minP, seed: samplingUsed.seed },
  );
  for await (const { token, confidence } of outputs) {
    if (signal.aborted) {
      finishReason = "abort";
      break;
    }
    if (prompt.stopTokens.has(token)) break;
    tokenIds.push(token);
    tokenProbs.push(greedy ? 1 : confidence);
    tokenLogprobs.push(greedy ? 0 : Math.log(confidence));
    if (stopTexts.length > 0) {
      const tail = model.detokenize(tokenIds.slice(-window), true, tokenIds.slice(-window - 4, -window));
      if (stopTexts.some((text) => tail.includes(text))) {
        stoppedByText = true;
        break;
      }
    }
    if (tokenIds.length >= maxTokens || tokens.length + tokenIds.length >= sequence.contextSize) {
      finishReason = "length";
      break;
    }
  }
  let rawText = model.detokenize(tokenIds, true);
  let plainText = model.detokenize(tokenIds, false);
  if (stoppedByText) {
    rawText = cutAtFirst(rawText, stopTexts);
    plainText = cutAtFirst(plainText, stopTexts);
  }
  return { rawText, plainText, finishReason, tokenIds, tokenProbs, tokenLogprobs, samplingUsed };
}

function cutAtFirst(text: string, stopTexts: string[]): string {
  const cut = Math.min(...stopTexts.map((stop) => text.indexOf(stop)).filter((index) => index !== -1));
  return Number.isFinite(cut) ? text.slice(0, cut) : text;
}
