import { copyFile, mkdtemp, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdapterMismatchError } from "../../main/llm/gguf/AdapterMismatchError.js";
import { checkAdapterFile } from "../../main/llm/gguf/checkAdapterFile.js";
import { checkModelFile } from "../../main/llm/gguf/checkModelFile.js";
import { GgufFormatError } from "../../main/llm/gguf/GgufFormatError.js";
import { readGgufInfo } from "../../main/llm/gguf/readGgufInfo.js";
import { gguf, writeGguf, writeLoraAdapter, writeTinyLlamaModel, type TinyLlamaModel } from "../support/ggufWriter.js";

const stories = resolve(import.meta.dirname, "../../../shared/models/stories260K.gguf");
let dir: string;
let tiny: TinyLlamaModel;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "spade-gguf-"));
  tiny = await writeTinyLlamaModel(join(dir, "tiny.gguf"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("readGgufInfo", () => {
  it("reads the header, metadata and tensor table of a real model", async () => {
    const info = await readGgufInfo(stories);
    expect(info.version).toBe(3);
    expect(info.tensorCount).toBe(48);
    expect(info.architecture).toBe("llama");
    expect(info.metadata["llama.embedding_length"]).toBe(64);
    expect(info.metadata["llama.attention.layer_norm_rms_epsilon"]).toBeCloseTo(1e-5, 9);
    expect(info.tensors[0]).toMatchObject({ name: "token_embd.weight", dims: [64, 512], typeName: "F32", byteSize: 64 * 512 * 4 });
    const last = info.tensors.at(-1)!;
    expect(last.offset + last.byteSize).toBeLessThanOrEqual(info.fileSize);
  });
  it("keeps long arrays as length only, short ones in full", async () => {
    const info = await readGgufInfo(stories, { maxArrayItems: 100 });
    expect(info.metadata["tokenizer.ggml.tokens"]).toEqual({ length: 512, items: null });
    const full = await readGgufInfo(stories, { maxArrayItems: 1000 });
    const tokens = full.metadata["tokenizer.ggml.tokens"];
    expect(typeof tokens === "object" && tokens.items?.[1]).toBe("<s>");
  });
  it("round-trips what the test writer wrote, including every value type", async () => {
    const path = join(dir, "types.gguf");
    await writeGguf(path, {
      metadata: {
        u8: { type: "uint8", value: 200 },
        i16: { type: "int16", value: -3 },
        u64: { type: "uint64", value: 2n ** 60n },
        i64: { type: "int64", value: -5n },
        f64: { type: "float64", value: 0.25 },
        flag: gguf.bool(true),
        name: gguf.str("héllo"),
        list: gguf.array("int32", [1, -2, 3]),
      },
      tensors: [{ name: "t", dims: [2, 3], data: new Float32Array(6) }],
    });
    const info = await readGgufInfo(path);
    expect(info.metadata).toEqual({ u8: 200, i16: -3, u64: 2n ** 60n, i64: -5, f64: 0.25, flag: true, name: "héllo", list: { length: 3, items: [1, -2, 3] } });
    expect(info.tensors).toEqual([{ name: "t", dims: [2, 3], type: 0, typeName: "F32", offset: info.dataOffset, byteSize: 24 }]);
    expect(info.architecture).toBeNull();
  });
});

describe("readGgufInfo on large headers", () => {
  it("reads a header bigger than its first 1 MiB window (a 100k-token vocabulary)", async () => {
    const path = join(dir, "big-vocab.gguf");
    const tokens = Array.from({ length: 100_000 }, (_, i) => `token-number-${i}`);
    await writeGguf(path, {
      metadata: { "general.architecture": gguf.str("llama"), "tokenizer.ggml.tokens": gguf.array("string", tokens), "tokenizer.ggml.scores": gguf.array("float32", tokens.map(() => 0.5)) },
      tensors: [{ name: "token_embd.weight", dims: [4, 8], data: new Float32Array(32) }],
    });
    const info = await readGgufInfo(path);
    expect(info.dataOffset).toBeGreaterThan(2 << 20);
    expect(info.metadata["tokenizer.ggml.tokens"]).toEqual({ length: 100_000, items: null });
    expect(info.tensors).toMatchObject([{ name: "token_embd.weight", dims: [4, 8], byteSize: 128 }]);
  });
});

describe("checkModelFile refuses what would crash or confuse llama.cpp", () => {
  const refuse = async (path: string, message: RegExp) => {
    const error = await checkModelFile(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GgufFormatError);
    expect((error as GgufFormatError).path).toBe(path);
    expect((error as Error).message).toMatch(message);
  };

  it("accepts the real model and the written tiny model", async () => {
    await expect(checkModelFile(stories)).resolves.toMatchObject({ architecture: "llama" });
    await expect(checkModelFile(tiny.path)).resolves.toMatchObject({ architecture: "llama", fileType: "model" });
  });
  it("a truncated copy: tensor data cut off, or the header itself cut", async () => {
    const half = join(dir, "half.gguf");
    await copyFile(stories, half);
    await truncate(half, 600_000);
    await refuse(half, /truncated: tensor "blk\.\d\.[a-z_]+\.weight" needs bytes \d+\.\.\d+, but the file ends at 600000/);
    const header = join(dir, "header.gguf");
    await copyFile(stories, header);
    await truncate(header, 300);
    await refuse(header, /truncated: the header and tensor table end at byte \d+, but the file ends at 300/);
    const metadata = join(dir, "metadata.gguf");
    await copyFile(tiny.path, metadata);
    await truncate(metadata, 3000);
    await refuse(metadata, /truncated|cannot be read within the file's 3000 bytes/);
  });
  it("not a GGUF, an unsupported version, a missing file", async () => {
    const text = join(dir, "notes.gguf");
    await writeFile(text, "hello, this is not a model");
    await refuse(text, /not a GGUF file: magic bytes are "hell", expected "GGUF"/);
    const v9 = join(dir, "v9.gguf");
    const bytes = await readFile(tiny.path);
    bytes.writeUInt32LE(9, 4);
    await writeFile(v9, bytes);
    await refuse(v9, /unsupported GGUF version 9, expected 2 or 3/);
    await refuse(join(dir, "missing.gguf"), /cannot open the file \(ENOENT\)/);
  });
  it("a corrupt length is caught before a huge allocation", async () => {
    const bad = join(dir, "badlen.gguf");
    const bytes = await readFile(tiny.path);
    bytes.writeBigUInt64LE(2n ** 50n, 24); // length of the first metadata key
    await writeFile(bad, bytes);
    await refuse(bad, /truncated or corrupt: the header cannot be read within the file's \d+ bytes/);
  });
  it("llama models missing a key whose absence aborts llama.cpp", async () => {
    for (const key of ["llama.attention.head_count", "llama.feed_forward_length", "llama.context_length", "llama.attention.layer_norm_rms_epsilon"]) {
      const path = join(dir, `no-${key}.gguf`);
      await writeTinyLlamaModel(path, { omitKeys: [key] });
      await refuse(path, new RegExp(`${key.replaceAll(".", "\\.")} is missing, expected a positive number`));
    }
    const noMerges = join(dir, "no-merges.gguf");
    await writeTinyLlamaModel(noMerges, { omitKeys: ["tokenizer.ggml.merges"] });
    await refuse(noMerges, /tokenizer\.ggml\.merges is missing, expected a non-empty array/);
    const noArch = join(dir, "no-arch.gguf");
    await writeTinyLlamaModel(noArch, { omitKeys: ["general.architecture"] });
    await refuse(noArch, /general\.architecture is missing/);
  });
  it("an adapter given as a model", async () => {
    const adapter = join(dir, "adapter-as-model.gguf");
    await writeLoraAdapter(adapter, { base: tiny });
    await refuse(adapter, /general\.type is "adapter", expected a model/);
  });
});

describe("split models (name-00001-of-0000n.gguf)", () => {
  it("reads every part's tensors, checks each part's size, and an adapter on a tensor in a later part is no mismatch", async () => {
    const first = join(dir, "split-00001-of-00003.gguf");
    const model = await writeTinyLlamaModel(first, { splitParts: 3 });
    const info = await checkModelFile(first);
    expect(info.parts).toBe(3);
    expect(info.tensors.map((t) => t.name).sort()).toEqual(model.tensors.map((t) => t.name).sort());
    const last = model.tensors.at(-1)!.name; // in part 3
    const adapter = join(dir, "split-lora.gguf");
    await writeLoraAdapter(adapter, { base: model, targets: [last] });
    await expect(checkAdapterFile(adapter, info)).resolves.toMatchObject({ fileType: "adapter" });
    // The first file alone (all the hand-written reader read) lacks that tensor: the check refused the adapter.
    const alone = join(dir, "first-part-alone.gguf");
    await copyFile(first, alone);
    await expect(checkAdapterFile(adapter, await readGgufInfo(alone))).rejects.toThrow(/does not have/);
    await truncate(join(dir, "split-00003-of-00003.gguf"), 200);
    await expect(checkModelFile(first)).rejects.toThrow(/split-00003-of-00003\.gguf|truncated/);
    await rm(join(dir, "split-00002-of-00003.gguf"));
    await expect(checkModelFile(first)).rejects.toThrow(/cannot open the file part .*split-00002-of-00003\.gguf of the split model \(ENOENT\)/);
  });
});

describe("checkAdapterFile", () => {
  it("accepts a matching adapter, by architecture or against the base model's tensors", async () => {
    const path = join(dir, "ok-lora.gguf");
    await writeLoraAdapter(path, { base: tiny, alpha: 8 });
    const info = await checkAdapterFile(path, "llama");
    expect(info.metadata["adapter.lora.alpha"]).toBe(8);
    await expect(checkAdapterFile(path, await readGgufInfo(tiny.path))).resolves.toMatchObject({ fileType: "adapter" });
  });
  it("refuses an adapter for another architecture with AdapterMismatchError", async () => {
    const path = join(dir, "qwen-lora.gguf");
    await writeLoraAdapter(path, { base: tiny, architecture: "qwen2" });
    const error = await checkAdapterFile(path, "llama").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdapterMismatchError);
    expect((error as Error).message).toBe(`${path}: the adapter is for architecture "qwen2", but the base model is "llama"`);
  });
  it("refuses a model given as an adapter, and tensors that do not fit the base", async () => {
    await expect(checkAdapterFile(tiny.path, "llama")).rejects.toThrow(/general\.type is "model", expected "adapter": this is not a LoRA adapter/);
    const other = await writeTinyLlamaModel(join(dir, "wide.gguf"), { embeddingLength: 64 });
    const wide = join(dir, "wide-lora.gguf");
    await writeLoraAdapter(wide, { base: other });
    await expect(checkAdapterFile(wide, "llama")).resolves.toBeDefined();
    await expect(checkAdapterFile(wide, await readGgufInfo(tiny.path))).rejects.toThrow(/"blk\.0\.attn_q\.weight" is \[32,32\] in the base model, but the adapter's lora_a is \[64,4\]/);
  });
  it("refuses unpaired or misnamed tensors and a missing alpha", async () => {
    const lonely = join(dir, "lonely.gguf");
    await writeGguf(lonely, {
      metadata: { "general.architecture": gguf.str("llama"), "general.type": gguf.str("adapter"), "adapter.type": gguf.str("lora"), "adapter.lora.alpha": gguf.f32(4) },
      tensors: [{ name: "blk.0.attn_q.weight.lora_a", dims: [32, 4], data: new Float32Array(128) }],
    });
    await expect(checkAdapterFile(lonely, "llama")).rejects.toThrow(/tensor "blk\.0\.attn_q\.weight\.lora_a" has no matching \.lora_b/);
    const noAlpha = join(dir, "no-alpha.gguf");
    await writeGguf(noAlpha, {
      metadata: { "general.architecture": gguf.str("llama"), "general.type": gguf.str("adapter"), "adapter.type": gguf.str("lora") },
      tensors: [],
    });
    await expect(checkAdapterFile(noAlpha, "llama")).rejects.toThrow(/adapter\.lora\.alpha is missing, expected a number/);
  });
});
