// Real inference with the 260K-parameter stories model on the CPU (one thread, small contexts).
import { copyFile, mkdtemp, rm, truncate } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../shared/llm.js";
import { GgufFormatError } from "../../main/llm/gguf/GgufFormatError.js";
import { LlamaBackend } from "../../main/llm/llama/LlamaBackend.js";
import { LlamaBackendStateError } from "../../main/llm/llama/LlamaBackendStateError.js";
import { LlamaRuntimeError } from "../../main/llm/llama/loadLlamaRuntime.js";
import { ModelDownloadError } from "../../main/llm/llama/ModelDownloadError.js";
import { PromptTooLongError } from "../../main/llm/PromptTooLongError.js";

const stories = resolve(import.meta.dirname, "../../../shared/models/stories260K.gguf");
const ask = (content: string): ChatMessage[] => [{ role: "user", content }];
const load = (sequences = 2, reusePrefix = true) => LlamaBackend.load({ model: stories, gpu: false, threads: 1, contextSize: 256, sequences, reusePrefix });

let backend: LlamaBackend;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "spade-llama-"));
  backend = await load();
});
afterAll(async () => {
  await backend?.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe("LlamaBackend on stories260K", () => {
  it("loads and chats: text, token ids, probabilities in (0, 1], token counts", async () => {
    expect(backend.name).toBe("llama:stories260K.gguf");
    expect(backend.parallelism).toBe(2);
    expect(backend.threads).toBe(1);
    expect(backend.adapter).toBeNull();
    const result = await backend.chat({ messages: ask("Once upon a time"), sampling: { seed: 1, maxTokens: 24, temperature: 0.8 } });
    expect(result.finishReason).toBe("length");
    expect(result.text.length).toBeGreaterThan(0);
    expect(result.reasoning).toBeNull();
    expect(result.promptTokens).toBeGreaterThan(4);
    expect(result.completionTokens).toBe(24);
    expect(result.tokenIds).toHaveLength(24);
    expect(result.tokenProbs).toHaveLength(24);
    for (const p of result.tokenProbs!) expect(p > 0 && p <= 1).toBe(true);
  });

  it("token probabilities are the model's distribution: consistent per token, matching sampled frequencies, summing to at most 1", async () => {
    const draws = await Promise.all(
      Array.from({ length: 40 }, (_, seed) => backend.chat({ messages: ask("Once upon a time"), sampling: { seed, temperature: 1, maxTokens: 1 } })),
    );
    const byToken = new Map<number, number[]>();
    for (const draw of draws) byToken.set(draw.tokenIds![0]!, [...(byToken.get(draw.tokenIds![0]!) ?? []), draw.tokenProbs![0]!]);
    let total = 0;
    for (const probs of byToken.values()) {
      for (const p of probs) expect(p).toBeCloseTo(probs[0]!, 4);
      total += probs[0]!;
    }
    expect(total).toBeLessThanOrEqual(1 + 1e-6);
    const [, commonest] = [...byToken.entries()].sort((x, y) => y[1].length - x[1].length)[0]!;
    expect(Math.abs(commonest.length / draws.length - commonest[0]!)).toBeLessThan(0.25);
  });

  it("with reusePrefix false, the same seed on one sequence gives the same text twice; another seed differs", async () => {
    const single = await load(1, false);
    try {
      const run = (seed: number) => single.chat({ messages: ask("Lily went to the park"), sampling: { seed, temperature: 1, maxTokens: 40 } });
      const first = await run(42);
      const second = await run(42);
      expect(second.text).toBe(first.text);
      expect(second.tokenIds).toEqual(first.tokenIds);
      expect(second.tokenProbs).toEqual(first.tokenProbs);
      const others = await Promise.all([run(1), run(2), run(3)]);
      expect(others.some((other) => other.text !== first.text)).toBe(true);
    } finally {
      await single.dispose();
    }
  });

  it("with reusePrefix (the default), a later turn reuses the cached prefix and matches a fresh evaluation up to rounding", async () => {
    const single = await load(1);
    try {
      const sampling = { temperature: 0, maxTokens: 20 };
      const turn1 = ask("Tom had a red ball.");
      const reply = await single.chat({ messages: turn1, sampling });
      const turn2: ChatMessage[] = [...turn1, { role: "assistant", content: reply.text }, { role: "user", content: "What happened next?" }];
      const reused = await single.chat({ messages: turn2, sampling });
      await single.chat({ messages: ask("Something unrelated entirely"), sampling });
      const fresh = await single.chat({ messages: turn2, sampling });
      expect(reused.text).toBe(fresh.text);
      expect(reused.tokenIds).toEqual(fresh.tokenIds);
      reused.tokenProbs!.forEach((p, i) => expect(p).toBeCloseTo(fresh.tokenProbs![i]!, 2));
    } finally {
      await single.dispose();
    }
  });

  it("runs more calls than sequences: all finish, and the sequences are reused", async () => {
    const prompts = ["A dog", "A bird", "A girl", "A boy", "A tree"];
    const results = await Promise.all(prompts.map((p, i) => backend.chat({ messages: ask(p), sampling: { seed: i, maxTokens: 12 } })));
    expect(results.map((r) => r.finishReason)).toEqual(Array(5).fill("length"));
    expect(results.map((r) => r.completionTokens)).toEqual(Array(5).fill(12));
    const again = await Promise.all(prompts.map((p, i) => backend.chat({ messages: ask(p), sampling: { seed: i, maxTokens: 4 } })));
    expect(again).toHaveLength(5);
  });

  it("stops at a stop string and cuts the text before it", async () => {
    const free = await backend.chat({ messages: ask("Once upon a time"), sampling: { temperature: 0, maxTokens: 40 } });
    const word = free.text.split(/\s+/).filter((w) => w.length >= 3)[2]!;
    const stopped = await backend.chat({ messages: ask("Once upon a time"), sampling: { temperature: 0, maxTokens: 40, stop: [word] } });
    expect(stopped.finishReason).toBe("stop");
    expect(stopped.text).toBe(free.text.slice(0, free.text.indexOf(word)));
    expect(stopped.completionTokens).toBeLessThan(40);
  });

  it("abort stops a running generation, a waiting call, and a call aborted before it starts", async () => {
    const running = new AbortController();
    const waiting = new AbortController();
    const long = { temperature: 1, seed: 1, maxTokens: 200 };
    const calls = [
      backend.chat({ messages: ask("A long story"), sampling: long, signal: running.signal }),
      backend.chat({ messages: ask("Another long story"), sampling: long }),
      backend.chat({ messages: ask("Queued"), sampling: long, signal: waiting.signal }),
    ];
    setTimeout(() => {
      running.abort();
      waiting.abort();
    }, 5);
    const [aborted, finished, never] = await Promise.all(calls);
    expect(aborted!.finishReason).toBe("abort");
    expect(aborted!.completionTokens).toBeLessThan(200);
    expect(finished!.finishReason).not.toBe("abort");
    expect(never).toMatchObject({ finishReason: "abort", completionTokens: 0, text: "" });
    const early = await backend.chat({ messages: ask("x"), signal: AbortSignal.abort() });
    expect(early.finishReason).toBe("abort");
  });

  it("refuses a prompt longer than the context with PromptTooLongError", async () => {
    const error = await backend.chat({ messages: ask("once upon a time ".repeat(200)) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PromptTooLongError);
    // stories260K was trained on 2048 tokens (its GGUF context_length): the context may grow to that, not past it.
    expect((error as Error).message).toMatch(/^prompt too long \(\d+ > 256 tokens; the model was trained on 2048\): raise backend.contextSize \(up to 2048\) or shorten the prompt$/);
    // Refused before a sequence was taken: the backend goes on serving.
    expect((await backend.chat({ messages: ask("Once"), sampling: { maxTokens: 2 } })).completionTokens).toBeGreaterThan(0);
  });

  it("embeds text: one vector per text, deterministic, as long as the model's embedding", async () => {
    const [a, b, c] = await Promise.all([backend.embed("the happy dog"), backend.embed("the happy dog"), backend.embed("a sad king")]);
    expect(a).toHaveLength(64);
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
  });
});

describe("LlamaBackend lifecycle and refusals", () => {
  it("refuses a truncated copy of the model with GgufFormatError, and the process survives", async () => {
    const broken = join(dir, "stories-truncated.gguf");
    await copyFile(stories, broken);
    await truncate(broken, 400_000);
    const error = await LlamaBackend.load({ model: broken, gpu: false, threads: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GgufFormatError);
    expect((error as Error).message).toMatch(/stories-truncated\.gguf: truncated: tensor ".+" needs bytes \d+\.\.\d+, but the file ends at 400000/);
    const still = await backend.chat({ messages: ask("Still here"), sampling: { maxTokens: 4 } });
    expect(still.completionTokens).toBe(4);
  });

  it("fails at once with ModelDownloadError when a model URI's host cannot be reached", async () => {
    const error = await LlamaBackend.load({ model: "https://models.invalid/tiny.gguf", modelsDir: dir, gpu: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelDownloadError);
    // the connection probe's answer (the name does not resolve), given before any download (and its retries) starts
    expect((error as Error).message).toMatch(/cannot download model https:\/\/models\.invalid\/tiny\.gguf: models\.invalid:443 cannot be reached \((ENOTFOUND|EAI_AGAIN)\)/);
  });

  it("refuses a GPU this machine cannot use with a clear LlamaRuntimeError instead of building llama.cpp", async () => {
    const { getLlamaGpuTypes } = await import("node-llama-cpp");
    const usable = await getLlamaGpuTypes("supported");
    const missing = (["cuda", "vulkan", "metal"] as const).find((gpu) => !usable.includes(gpu));
    if (!missing) return; // Every GPU type works here: nothing to refuse.
    const error = await LlamaBackend.load({ model: stories, gpu: missing }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlamaRuntimeError);
    expect((error as Error).message).toMatch(new RegExp(`cannot start llama.cpp with gpu "${missing}": .*gpu "auto" falls back to the CPU`));
  });

  it("unload frees the model (calls are refused), reload brings it back with the same behaviour", async () => {
    const single = await load(1);
    try {
      const sampling = { seed: 9, temperature: 1, maxTokens: 16 };
      const before = await single.chat({ messages: ask("A fox"), sampling });
      await single.unload();
      await expect(single.chat({ messages: ask("A fox"), sampling })).rejects.toThrow(LlamaBackendStateError);
      await expect(single.chat({ messages: ask("A fox") })).rejects.toThrow(/is unloaded; call reload\(\) first/);
      await single.reload();
      const after = await single.chat({ messages: ask("A fox"), sampling });
      expect(after.text).toBe(before.text);
    } finally {
      await single.dispose();
    }
  });

  it("dispose aborts calls in flight and refuses new ones", async () => {
    const doomed = await load(1);
    const running = doomed.chat({ messages: ask("A very long tale"), sampling: { maxTokens: 200, temperature: 1, seed: 1 } });
    await new Promise((r) => setTimeout(r, 5));
    await doomed.dispose();
    expect((await running).finishReason).toBe("abort");
    await expect(doomed.chat({ messages: ask("x") })).rejects.toThrow(/is disposed/);
  });
});
