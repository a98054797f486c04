import type { LlamaContextSequence, Token } from "node-llama-cpp";
import type { FinishReason, SamplingOptions } from "../../../shared/llm.js";
import { PromptTooLongError } from "./PromptTooLongError.js";
import type { RenderedPrompt } from "./renderChatPrompt.js";

export interface Generation {
  /** The generated text, cut before any stop text. */
  rawText: string;
  finishReason: FinishReason;
  /** Generated tokens: not the end-of-generation token, but including tokens that spell a stop text. */
  tokenIds: Token[];
  /** Probability of each generated token under the sampling distribution (after temperature, top-k, ...). */
  tokenProbs: number[];
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
 */
export async function generateOnSequence(
  sequence: LlamaContextSequence,
  prompt: RenderedPrompt,
  sampling: SamplingOptions,
  signal: AbortSignal,
  reusePrefix: boolean,
): Promise<Generation> {
  const { tokens } = prompt;
  if (tokens.length >= sequence.contextSize) throw new PromptTooLongError(tokens.length, sequence.contextSize);
  const shared = reusePrefix ? sequence.compareContextTokens(tokens).firstDifferentIndex : 0;
  const keep = Math.min(shared, tokens.length - 1);
  if (keep < sequence.nextTokenIndex) await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);

  const maxTokens = sampling.maxTokens ?? defaultMaxTokens;
  const stopTexts = [...prompt.stopTexts, ...(sampling.stop ?? [])].filter((text) => text.length > 0);
  const window = Math.max(0, ...stopTexts.map((text) => text.length)) + 1;
  const model = sequence.model;
  const tokenIds: Token[] = [];
  const tokenProbs: number[] = [];
  let finishReason: FinishReason = "stop";
  let stoppedByText = false;

  if (maxTokens <= 0 || signal.aborted) {
    return { rawText: "", finishReason: signal.aborted ? "abort" : "length", tokenIds, tokenProbs };
  }
  const outputs = sequence.evaluateWithMetadata(
    tokens.slice(keep),
    { confidence: true },
    {
      temperature: sampling.temperature ?? defaultTemperature,
      topK: sampling.topK ?? fullDistribution.topK,
      topP: sampling.topP ?? fullDistribution.topP,
      minP: sampling.minP ?? fullDistribution.minP,
      seed: sampling.seed,
    },
  );
  for await (const { token, confidence } of outputs) {
    if (signal.aborted) {
      finishReason = "abort";
      break;
    }
    if (prompt.stopTokens.has(token)) break;
    tokenIds.push(token);
    tokenProbs.push(confidence);
    if (stopTexts.length > 0) {
      const tail = model.detokenize(tokenIds.slice(-window), false, tokenIds.slice(-window - 4, -window));
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
  let rawText = model.detokenize(tokenIds);
  if (stoppedByText) {
    const cut = Math.min(...stopTexts.map((text) => rawText.indexOf(text)).filter((index) => index !== -1));
    if (Number.isFinite(cut)) rawText = rawText.slice(0, cut);
  }
  return { rawText, finishReason, tokenIds, tokenProbs };
}
