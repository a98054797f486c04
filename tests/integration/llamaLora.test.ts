// LoRA plumbing with a random-weight tiny llama and adapters written by the test GGUF writer.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatResult } from "../../shared/llm.js";
import { AdapterMismatchError } from "../../main/llm/gguf/AdapterMismatchError.js";
import { LlamaBackend } from "../../main/llm/llama/LlamaBackend.js";
import { writeLoraAdapter, writeTinyLlamaModel, type TinyLlamaModel } from "../support/ggufWriter.js";

let dir: string;
let tiny: TinyLlamaModel;
let adapterPath: string;
let foreignPath: string;
let base: LlamaBackend;
let baseline: ChatResult;

const greedy = { temperature: 0, maxTokens: 16 };
const messages = [{ role: "user" as const, content: "the cat sat in the hat" }];
const load = (lora: Array<{ path: string; scale?: number }> = [], contextSize = 128) =>
  LlamaBackend.load({ model: tiny.path, gpu: false, threads: 1, contextSize, reusePrefix: false, lora });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "spade-lora-"));
  tiny = await writeTinyLlamaModel(join(dir, "tiny.gguf"));
  adapterPath = join(dir, "adapter-v1.gguf");
  foreignPath = join(dir, "adapter-qwen2.gguf");
  await writeLoraAdapter(adapterPath, { base: tiny });
  await writeLoraAdapter(foreignPath, { base: tiny, architecture: "qwen2" });
  base = await load();
  baseline = await base.chat({ messages, sampling: greedy });
});
afterAll(async () => {
  await base?.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe("LoRA adapters on a tiny random llama", () => {
  it("the base model generates a full greedy reply (the writer keeps EOS out of greedy reach)", () => {
    expect(baseline.completionTokens).toBe(16);
    expect(baseline.finishReason).toBe("length");
  });

  it("an adapter changes the output; scale 0 gives the base output back exactly", async () => {
    const adapted = await load([{ path: adapterPath }]);
    const zero = await load([{ path: adapterPath, scale: 0 }]);
    try {
      expect(adapted.adapter).toBe("adapter-v1.gguf");
      expect(zero.adapter).toBe("adapter-v1.gguf@0");
      const withAdapter = await adapted.chat({ messages, sampling: greedy });
      const withZero = await zero.chat({ messages, sampling: greedy });
      expect(withAdapter.tokenIds).not.toEqual(baseline.tokenIds);
      expect(withZero.tokenIds).toEqual(baseline.tokenIds);
      expect(withZero.tokenProbs).toEqual(baseline.tokenProbs);
    } finally {
      await Promise.all([adapted.dispose(), zero.dispose()]);
    }
  });

  it("on the CPU the backend says so (gpu false); released for a trainer, it is loaded back once with the new adapter", async () => {
    const backend = await load();
    try {
      expect(backend.gpu).toBe(false);
      await backend.unload();
      await expect(backend.reload([{ path: foreignPath }])).rejects.toThrow(AdapterMismatchError);
      await backend.reload([{ path: adapterPath }]);
      expect(backend.adapter).toBe("adapter-v1.gguf");
      const adapted = await load([{ path: adapterPath }]);
      try {
        expect((await backend.chat({ messages, sampling: greedy })).tokenIds).toEqual((await adapted.chat({ messages, sampling: greedy })).tokenIds);
      } finally {
        await adapted.dispose();
      }
      await backend.unload();
      await backend.reload();
      expect(backend.adapter).toBe("adapter-v1.gguf");
    } finally {
      await backend.dispose();
    }
  });

  it("setAdapters switches to a new context; a call already running finishes on the old one", async () => {
    const backend = await load([], 512);
    try {
      let settled = false;
      const running = backend.chat({ messages, sampling: { ...greedy, maxTokens: 400 } });
      void running.then(() => (settled = true));
      await backend.setAdapters([{ path: adapterPath }]);
      expect(backend.adapter).toBe("adapter-v1.gguf");
      expect(settled).toBe(false);
      const old = await running;
      expect(old.finishReason).toBe("length");
      expect(old.tokenIds!.slice(0, 16)).toEqual(baseline.tokenIds);
      const switched = await backend.chat({ messages, sampling: greedy });
      expect(switched.tokenIds).not.toEqual(baseline.tokenIds);
      await backend.setAdapters([]);
      expect(backend.adapter).toBeNull();
      expect((await backend.chat({ messages, sampling: greedy })).tokenIds).toEqual(baseline.tokenIds);
    } finally {
      await backend.dispose();
    }
  });

  it("an adapter for another architecture is refused with AdapterMismatchError, at load and on switching", async () => {
    const atLoad = await load([{ path: foreignPath }]).catch((e: unknown) => e);
    expect(atLoad).toBeInstanceOf(AdapterMismatchError);
    expect((atLoad as Error).message).toBe(`${foreignPath}: the adapter is for architecture "qwen2", but the base model is "llama"`);
    await expect(base.setAdapters([{ path: foreignPath }])).rejects.toThrow(AdapterMismatchError);
    expect(base.adapter).toBeNull();
    expect((await base.chat({ messages, sampling: greedy })).tokenIds).toEqual(baseline.tokenIds);
  });

  it("refuses an adapter file rewritten under a name this model already loaded (llama.cpp caches by path)", async () => {
    const path = join(dir, "adapter-reused-name.gguf");
    await writeLoraAdapter(path, { base: tiny, seed: 3 });
    const backend = await load([{ path }]);
    try {
      await new Promise((r) => setTimeout(r, 20));
      await writeLoraAdapter(path, { base: tiny, seed: 4, rank: 2 });
      await expect(backend.setAdapters([{ path }])).rejects.toThrow(/changed since this model first loaded it.*write each adapter version to a new file name/);
    } finally {
      await backend.dispose();
    }
  });
});
