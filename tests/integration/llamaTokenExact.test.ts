// Token-exact results on stories260K: the prompt tokens as evaluated, the sampled tokens, and each
// token's log-prob under the distribution it was sampled from, recomputed independently with raw
// node-llama-cpp (full probabilities at temperature 1, then temperature and truncation by hand).
import { resolve } from "node:path";
import { getLlama, type Llama, type LlamaContext, type LlamaModel, type Token } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SamplingOptions } from "../../shared/llm.js";
import { LlamaBackend } from "../../main/llm/llama/LlamaBackend.js";

const stories = resolve(import.meta.dirname, "../../../shared/models/stories260K.gguf");

let backend: LlamaBackend;
let llama: Llama;
let model: LlamaModel;
let context: LlamaContext;
beforeAll(async () => {
  backend = await LlamaBackend.load({ model: stories, gpu: false, threads: 1, contextSize: 256, sequences: 1, reusePrefix: false });
  llama = await getLlama({ gpu: false, maxThreads: 1, build: "never", logLevel: "error" as never });
  model = await llama.loadModel({ modelPath: stories });
  context = await model.createContext({ contextSize: 256 });
});
afterAll(async () => {
  await backend?.dispose();
  await llama?.dispose();
});

/** Full next-token distributions (temperature 1, nothing cut) after the prompt and after each recorded token. */
async function fullDistributions(prompt: number[], tokens: number[]): Promise<Array<Map<number, number>>> {
  const sequence = context.getSequence();
  try {
    const out: Array<Map<number, number>> = [];
    const steps = sequence.evaluateWithMetadata(prompt as Token[], { probabilities: true }, { temperature: 1, topK: 0, topP: 1, minP: 0 });
    let step = await steps.next();
    for (let i = 0; i < tokens.length && !step.done; i++) {
      out.push(step.value.probabilities);
      step = await steps.next(tokens[i] as Token);
    }
    await steps.return();
    return out;
  } finally {
    sequence.dispose();
  }
}

/** log p of `token` after temperature T and the top-k / top-p cut, computed from the untouched distribution. */
function expectedLogprob(full: Map<number, number>, token: number, { temperature = 1, topK = 0, topP = 1 }: SamplingOptions): number {
  let sorted = [...full.entries()].sort((a, b) => b[1] - a[1]);
  if (topK > 0) sorted = sorted.slice(0, topK);
  if (topP < 1) {
    const total = sorted.reduce((sum, [, p]) => sum + p, 0);
    let cumulative = 0;
    const kept: typeof sorted = [];
    for (const entry of sorted) {
      kept.push(entry);
      cumulative += entry[1] / total;
      if (cumulative >= topP) break;
    }
    sorted = kept;
  }
  const scaled = sorted.map(([id, p]) => [id, Math.log(p) / temperature] as const);
  const max = Math.max(...scaled.map(([, l]) => l));
  const logSum = max + Math.log(scaled.reduce((sum, [, l]) => sum + Math.exp(l - max), 0));
  const own = scaled.find(([id]) => id === token);
  expect(own, `token ${token} must be in the kept set`).toBeDefined();
  return own![1] - logSum;
}

describe("token-exact results", () => {
  it.each<SamplingOptions>([
    { temperature: 1, seed: 5 },
    { temperature: 0.7, topK: 12, seed: 3 },
    { temperature: 1.3, topP: 0.8, seed: 9 },
  ])("log-probs under the sampling distribution agree with an independent recomputation (%o)", async (sampling) => {
    const result = await backend.chat({ messages: [{ role: "user", content: "Once upon a time" }], sampling: { ...sampling, maxTokens: 8 } });
    expect(result.promptTokenIds!.length).toBe(result.promptTokens);
    expect(result.tokenIds).toHaveLength(result.completionTokens);
    expect(result.tokenLogprobs).toHaveLength(result.completionTokens);
    expect(result.samplingUsed).toMatchObject({ temperature: sampling.temperature, topK: sampling.topK ?? 0, topP: sampling.topP ?? 1, minP: 0, maxTokens: 8, seed: sampling.seed });
    // The prompt ids are what the model saw: the chat template's rendering, tokenised.
    expect(model.detokenize(result.promptTokenIds as Token[], true)).toContain("Once upon a time");
    const full = await fullDistributions(result.promptTokenIds!, result.tokenIds!);
    expect(full).toHaveLength(result.tokenIds!.length);
    full.forEach((distribution, i) => {
      expect(result.tokenLogprobs![i]).toBeCloseTo(expectedLogprob(distribution, result.tokenIds![i]!, sampling), 3);
      expect(Math.exp(result.tokenLogprobs![i]!)).toBeCloseTo(result.tokenProbs![i]!, 6);
    });
  });

  it("the kept set's probabilities under the sampling settings sum to 1, and a temperature-1 cut changes the log-prob", async () => {
    const sampling = { temperature: 0.8, topK: 7 };
    const result = await backend.chat({ messages: [{ role: "user", content: "The dog" }], sampling: { ...sampling, seed: 2, maxTokens: 3 } });
    const sequence = context.getSequence();
    try {
      const steps = sequence.evaluateWithMetadata(result.promptTokenIds as Token[], { probabilities: true }, { ...sampling, topP: 1, minP: 0 });
      const first = (await steps.next()).value!;
      await steps.return();
      expect(first.probabilities.size).toBe(7);
      const sum = [...first.probabilities.values()].reduce((a, b) => a + b, 0);
      expect(sum).toBeCloseTo(1, 5);
      expect(Math.log(first.probabilities.get(result.tokenIds![0] as Token)!)).toBeCloseTo(result.tokenLogprobs![0]!, 3);
    } finally {
      sequence.dispose();
    }
    const full = (await fullDistributions(result.promptTokenIds!, result.tokenIds!.slice(0, 1)))[0]!;
    // The untruncated temperature-1 log-prob is a different number: the test would catch a backend that reported it.
    expect(Math.abs(Math.log(full.get(result.tokenIds![0]!)!) - result.tokenLogprobs![0]!)).toBeGreaterThan(1e-3);
  });

  it("greedy sampling (temperature 0) records log-prob 0 for every token", async () => {
    const result = await backend.chat({ messages: [{ role: "user", content: "Lily" }], sampling: { temperature: 0, maxTokens: 5 } });
    expect(result.tokenLogprobs!.length).toBeGreaterThan(0);
    expect(result.tokenLogprobs!.every((value) => value === 0)).toBe(true);
  });

  it("exposes the layout and counts tokens as a call renders them", async () => {
    expect(backend.layout).toMatch(/^1 sequence x 256 tokens in one context \(batch \d+\), cpu, 1 thread$/);
    const messages = [{ role: "user" as const, content: "Once upon a time" }];
    const result = await backend.chat({ messages, sampling: { maxTokens: 1 } });
    expect(await backend.countTokens(messages)).toBe(result.promptTokens);
  });
});

describe("tools and thinking on the real backend", () => {
  it("offered tools are rendered into the prompt by the model's template; a call without tools has none", async () => {
    const messages = [{ role: "user" as const, content: "Count the apples" }];
    const tools = [{ name: "count_apples", description: "Counts apples", parameters: { type: "object", properties: {} } }];
    // The template's function preamble does not fit 256 tokens: refused before evaluation, by size.
    await expect(backend.chat({ messages, tools, sampling: { maxTokens: 2 } })).rejects.toThrow(/^prompt too long \(\d+ > 256 tokens; the model was trained on 2048\): raise backend\.contextSize \(up to 2048\)/);
    const roomy = await LlamaBackend.load({ model: stories, gpu: false, threads: 1, contextSize: 1024 });
    try {
      const plain = await roomy.chat({ messages, sampling: { maxTokens: 2, seed: 1 } });
      const offered = await roomy.chat({ messages, tools, sampling: { maxTokens: 2, seed: 1 } });
      expect(offered.promptTokens).toBeGreaterThan(plain.promptTokens);
      expect(model.detokenize(offered.promptTokenIds as Token[], true)).toContain("count_apples");
      expect(await roomy.countTokens(messages, { tools })).toBe(offered.promptTokens);
      expect(offered.toolCalls).toBeUndefined();
    } finally {
      await roomy.dispose();
    }
  });
});

describe("context size", () => {
  it('"auto" and {min, max} are sized by node-llama-cpp, within the bounds', async () => {
    const auto = await LlamaBackend.load({ model: stories, gpu: false, threads: 1, sequences: 2 });
    try {
      expect(auto.contextSize).toBeGreaterThanOrEqual(model.trainContextSize);
      expect(auto.layout).toMatch(/^2 sequences x \d+ tokens/);
      // Later contexts (a reload, new adapters) keep the first size rather than sizing again beside the old one.
      const first = auto.contextSize;
      await auto.unload();
      await auto.reload();
      expect(auto.contextSize).toBe(first);
    } finally {
      await auto.dispose();
    }
    const bounded = await LlamaBackend.load({ model: stories, gpu: false, threads: 1, contextSize: { max: 128 } });
    try {
      expect(bounded.contextSize).toBeLessThanOrEqual(256);
    } finally {
      await bounded.dispose();
    }
  });
});
