import type { BatchLine } from "./TrainingBatch.js";

/** The token record of one model call: the prompt as evaluated, the sampled tokens and their log-probs. */
export interface CallTokens {
  promptTokenIds: number[] | null;
  tokenIds: number[] | null;
  tokenLogprobs: number[] | null;
  /** false: the call's tokens stay in the context but are not trained (a malformed tool call). Defaults to true. */
  trained?: boolean;
}

export type TokenSequence = Pick<BatchLine, "tokens" | "mask" | "behaviorLogprobs">;

/**
 * The training sequence(s) of one sample (a play's turns, or a single designer call): when each
 * turn's prompt begins with everything before it (the previous prompt, reply and observation), one
 * sequence with only the sampled tokens masked in, as the reference builds a multi-turn trajectory;
 * otherwise (a chat template that rewrites earlier turns, a trimmed history) one sequence per turn,
 * each with the exact context that turn saw. Null when a call has no recorded tokens, or no call is
 * trained.
 */
export function episodeSequence(calls: readonly CallTokens[]): TokenSequence[] | null {
  if (calls.length === 0 || calls.some((call) => !call.promptTokenIds || !call.tokenIds)) return null;
  const sampled = calls.filter((call) => call.tokenIds!.length > 0 && call.trained !== false);
  if (sampled.length === 0) return null;
  const chained = chain(calls);
  return chained ? [chained] : sampled.map((call) => chain([call])!);
}

function chain(calls: readonly CallTokens[]): TokenSequence | null {
  const tokens: number[] = [];
  const mask: (0 | 1)[] = [];
  const behaviorLogprobs: (number | null)[] = [];
  for (const call of calls) {
    const prompt = call.promptTokenIds!;
    if (prompt.length < tokens.length || tokens.some((token, i) => prompt[i] !== token)) return null;
    for (const token of prompt.slice(tokens.length)) {
      tokens.push(token);
      mask.push(0);
      behaviorLogprobs.push(null);
    }
    const completion = call.tokenIds!;
    const known = call.tokenLogprobs !== null && call.tokenLogprobs.length === completion.length;
    const trained = call.trained !== false;
    completion.forEach((token, i) => {
      tokens.push(token);
      mask.push(trained ? 1 : 0);
      behaviorLogprobs.push(trained && known ? call.tokenLogprobs![i]! : null);
    });
  }
  return { tokens, mask, behaviorLogprobs };
}
