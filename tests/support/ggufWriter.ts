// A small GGUF writer for tests: tiny random-weight llama models (gpt2 byte-level tokenizer) and
// matching LoRA adapters, written in milliseconds. Issue 5's fake trainer reuses it.
import { writeFile } from "node:fs/promises";
import { ggmlTensorTypeId } from "../../main/llm/gguf/ggmlTensorType.js";
import { GgufValueType } from "./ggufValueType.js";

type ScalarType = "uint8" | "int8" | "uint16" | "int16" | "uint32" | "int32" | "float32" | "bool" | "uint64" | "int64" | "float64" | "string";

/** A metadata value with its GGUF type spelled out (a JS number does not say u32 or f32). */
export type GgufWriterValue =
  | { type: ScalarType; value: number | bigint | boolean | string }
  | { type: "array"; itemType: ScalarType; items: Array<number | bigint | boolean | string> };

export const gguf = {
  u32: (value: number): GgufWriterValue => ({ type: "uint32", value }),
  i32: (value: number): GgufWriterValue => ({ type: "int32", value }),
  f32: (value: number): GgufWriterValue => ({ type: "float32", value }),
  bool: (value: boolean): GgufWriterValue => ({ type: "bool", value }),
  str: (value: string): GgufWriterValue => ({ type: "string", value }),
  array: (itemType: ScalarType, items: Array<number | bigint | boolean | string>): GgufWriterValue => ({ type: "array", itemType, items }),
};

/** An F32 tensor; `dims` in ggml order (`dims[0]` is the row length). */
export interface GgufWriterTensor {
  name: string;
  dims: number[];
  data: Float32Array;
}

export interface WriteGgufOptions {
  metadata: Record<string, GgufWriterValue>;
  tensors: GgufWriterTensor[];
  /** Defaults to 32. */
  alignment?: number;
}

class ByteSink {
  private chunks: Buffer[] = [];
  length = 0;
  push(buffer: Buffer): void {
    this.chunks.push(buffer);
    this.length += buffer.length;
  }
  u32(value: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(value);
    this.push(b);
  }
  u64(value: number | bigint): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(value));
    this.push(b);
  }
  string(value: string): void {
    const length = Buffer.byteLength(value, "utf8");
    const b = Buffer.allocUnsafe(8 + length);
    b.writeBigUInt64LE(BigInt(length));
    b.write(value, 8, "utf8");
    this.push(b);
  }
  scalar(type: ScalarType, value: number | bigint | boolean | string): void {
    const b = Buffer.alloc(8);
    switch (type) {
      case "uint8": return this.push(Buffer.from([Number(value)]));
      case "int8": b.writeInt8(Number(value)); return this.push(b.subarray(0, 1));
      case "uint16": b.writeUInt16LE(Number(value)); return this.push(b.subarray(0, 2));
      case "int16": b.writeInt16LE(Number(value)); return this.push(b.subarray(0, 2));
      case "uint32": b.writeUInt32LE(Number(value)); return this.push(b.subarray(0, 4));
      case "int32": b.writeInt32LE(Number(value)); return this.push(b.subarray(0, 4));
      case "float32": b.writeFloatLE(Number(value)); return this.push(b.subarray(0, 4));
      case "bool": return this.push(Buffer.from([value ? 1 : 0]));
      case "uint64": b.writeBigUInt64LE(BigInt(value)); return this.push(b);
      case "int64": b.writeBigInt64LE(BigInt(value)); return this.push(b);
      case "float64": b.writeDoubleLE(Number(value)); return this.push(b);
      case "string": return this.string(String(value));
    }
  }
  pad(alignment: number): void {
    const extra = (alignment - (this.length % alignment)) % alignment;
    if (extra) this.push(Buffer.alloc(extra));
  }
  concat(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
}

/** Writes a GGUF v3 file with the given metadata and F32 tensors. */
export async function writeGguf(path: string, options: WriteGgufOptions): Promise<void> {
  const alignment = options.alignment ?? 32;
  const f32 = ggmlTensorTypeId("F32")!;
  const sink = new ByteSink();
  sink.push(Buffer.from("GGUF", "latin1"));
  sink.u32(3);
  sink.u64(options.tensors.length);
  sink.u64(Object.keys(options.metadata).length);
  for (const [key, value] of Object.entries(options.metadata)) {
    sink.string(key);
    if (value.type === "array") {
      sink.u32(GgufValueType.array);
      sink.u32(GgufValueType[value.itemType]);
      sink.u64(value.items.length);
      for (const item of value.items) sink.scalar(value.itemType, item);
    } else {
      sink.u32(GgufValueType[value.type]);
      sink.scalar(value.type, value.value);
    }
  }
  let offset = 0;
  for (const tensor of options.tensors) {
    const elements = tensor.dims.reduce((a, b) => a * b, 1);
    if (elements !== tensor.data.length) throw new Error(`tensor ${tensor.name}: dims [${tensor.dims}] hold ${elements} values, data has ${tensor.data.length}`);
    sink.string(tensor.name);
    sink.u32(tensor.dims.length);
    for (const dim of tensor.dims) sink.u64(dim);
    sink.u32(f32);
    sink.u64(offset);
    offset += Math.ceil((elements * 4) / alignment) * alignment;
  }
  sink.pad(alignment);
  for (const tensor of options.tensors) {
    sink.push(Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
    sink.pad(alignment);
  }
  await writeFile(path, sink.concat());
}

/** A seeded normal(0, 1) generator (mulberry32 + Box-Muller), so written weights are reproducible. */
export function seededNormal(seed: number): () => number {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

function randomTensor(name: string, dims: number[], next: () => number, scale: number): GgufWriterTensor {
  const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
  for (let i = 0; i < data.length; i++) data[i] = next() * scale;
  return { name, dims, data };
}

function onesTensor(name: string, length: number): GgufWriterTensor {
  return { name, dims: [length], data: new Float32Array(length).fill(1) };
}

/** gpt2's byte-to-unicode table: printable bytes map to themselves, the rest to U+0100 onwards. */
function gpt2ByteTokens(): string[] {
  const tokens: string[] = [];
  let shifted = 0;
  for (let byte = 0; byte < 256; byte++) {
    const printable = (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || byte >= 174;
    tokens.push(String.fromCodePoint(printable ? byte : 256 + shifted++));
  }
  return tokens;
}

export interface TinyLlamaOptions {
  /** Seed of the random weights. Defaults to 1. */
  seed?: number;
  /** Defaults to 32. */
  embeddingLength?: number;
  /** Defaults to 2. */
  blockCount?: number;
  /** Defaults to 4. */
  headCount?: number;
  /** Defaults to 64. */
  feedForwardLength?: number;
  /** Defaults to 512. */
  contextLength?: number;
  /** Metadata keys to leave out, to write deliberately broken models. Defaults to none. */
  omitKeys?: string[];
  /**
   * Write the model split into this many files, as llama.cpp's gguf-split does: `path` must end in
   * `-00001-of-0000n.gguf`; the first part holds the metadata, every part `split.no` / `split.count`
   * / `split.tensors.count` and its share of the tensors. Defaults to 1 (one file).
   */
  splitParts?: number;
}

/** What was written, so a matching adapter can be made. */
export interface TinyLlamaModel {
  path: string;
  architecture: string;
  vocabSize: number;
  eosTokenId: number;
  tensors: Array<{ name: string; dims: number[] }>;
}

const merges = ["Ġ t", "h e", "Ġt he", "Ġ a", "i n"];
const endOfText = "<|endoftext|>";

/**
 * Writes a random-weight llama-architecture model with a gpt2 byte-level BPE tokenizer (256 byte
 * tokens, a few merges, `<|endoftext|>` as BOS/EOS). The output row of EOS is zero, so greedy
 * decoding never picks it (some random logit is always above 0) and generations run to maxTokens.
 */
export async function writeTinyLlamaModel(path: string, options: TinyLlamaOptions = {}): Promise<TinyLlamaModel> {
  const embedding = options.embeddingLength ?? 32;
  const blocks = options.blockCount ?? 2;
  const heads = options.headCount ?? 4;
  const feedForward = options.feedForwardLength ?? 64;
  const next = seededNormal(options.seed ?? 1);
  const tokens = [...gpt2ByteTokens(), ...merges.map((merge) => merge.replace(" ", "")), endOfText];
  const vocabSize = tokens.length;
  const eosTokenId = vocabSize - 1;
  const metadata: Record<string, GgufWriterValue> = {
    "general.architecture": gguf.str("llama"),
    "general.type": gguf.str("model"),
    "general.name": gguf.str("tiny-random-llama"),
    "llama.context_length": gguf.u32(options.contextLength ?? 512),
    "llama.embedding_length": gguf.u32(embedding),
    "llama.block_count": gguf.u32(blocks),
    "llama.feed_forward_length": gguf.u32(feedForward),
    "llama.attention.head_count": gguf.u32(heads),
    "llama.attention.head_count_kv": gguf.u32(heads),
    "llama.attention.layer_norm_rms_epsilon": gguf.f32(1e-5),
    "llama.rope.dimension_count": gguf.u32(embedding / heads),
    "tokenizer.ggml.model": gguf.str("gpt2"),
    "tokenizer.ggml.pre": gguf.str("gpt-2"),
    "tokenizer.ggml.tokens": gguf.array("string", tokens),
    "tokenizer.ggml.token_type": gguf.array("int32", tokens.map((_, i) => (i === eosTokenId ? 3 : 1))),
    "tokenizer.ggml.merges": gguf.array("string", merges),
    "tokenizer.ggml.bos_token_id": gguf.u32(eosTokenId),
    "tokenizer.ggml.eos_token_id": gguf.u32(eosTokenId),
    "tokenizer.ggml.add_bos_token": gguf.bool(false),
  };
  for (const key of options.omitKeys ?? []) delete metadata[key];

  const weight = 1 / Math.sqrt(embedding);
  const output = randomTensor("output.weight", [embedding, vocabSize], next, 1);
  output.data.fill(0, eosTokenId * embedding, (eosTokenId + 1) * embedding);
  const tensors: GgufWriterTensor[] = [randomTensor("token_embd.weight", [embedding, vocabSize], next, 1), onesTensor("output_norm.weight", embedding), output];
  for (let b = 0; b < blocks; b++) {
    const p = `blk.${b}.`;
    tensors.push(
      onesTensor(`${p}attn_norm.weight`, embedding),
      randomTensor(`${p}attn_q.weight`, [embedding, embedding], next, weight),
      randomTensor(`${p}attn_k.weight`, [embedding, embedding], next, weight),
      randomTensor(`${p}attn_v.weight`, [embedding, embedding], next, weight),
      randomTensor(`${p}attn_output.weight`, [embedding, embedding], next, weight),
      onesTensor(`${p}ffn_norm.weight`, embedding),
      randomTensor(`${p}ffn_gate.weight`, [embedding, feedForward], next, weight),
      randomTensor(`${p}ffn_up.weight`, [embedding, feedForward], next, weight),
      randomTensor(`${p}ffn_down.weight`, [feedForward, embedding], next, 1 / Math.sqrt(feedForward)),
    );
  }
  const parts = options.splitParts ?? 1;
  if (parts === 1) await writeGguf(path, { metadata, tensors });
  else {
    const match = /-00001-of-(\d{5})\.gguf$/.exec(path);
    if (!match || Number(match[1]) !== parts) throw new Error(`writeTinyLlamaModel: a ${parts}-part model's path must end in -00001-of-${String(parts).padStart(5, "0")}.gguf`);
    const share = Math.ceil(tensors.length / parts);
    for (let part = 0; part < parts; part++) {
      const split: Record<string, GgufWriterValue> = { "split.no": { type: "uint16", value: part }, "split.count": { type: "uint16", value: parts }, "split.tensors.count": gguf.i32(tensors.length) };
      const partPath = path.replace(/-00001-of-/, `-${String(part + 1).padStart(5, "0")}-of-`);
      await writeGguf(partPath, { metadata: part === 0 ? { ...metadata, ...split } : split, tensors: tensors.slice(part * share, (part + 1) * share) });
    }
  }
  return { path, architecture: "llama", vocabSize, eosTokenId, tensors: tensors.map(({ name, dims }) => ({ name, dims })) };
}

export interface LoraAdapterOptions {
  /** The model the adapter is for (its tensor shapes are used). */
  base: TinyLlamaModel;
  /** `general.architecture` written into the adapter. Defaults to the base model's. */
  architecture?: string;
  /** Defaults to 4. */
  rank?: number;
  /** `adapter.lora.alpha`. Defaults to the rank (an effective scale of 1). */
  alpha?: number;
  /** Seed of the random A/B matrices. Defaults to 2. */
  seed?: number;
  /** Standard deviation of the A and B entries. Defaults to 0.5 (a strong adapter). */
  magnitude?: number;
  /** Base tensors to adapt. Defaults to every block's attn_q, attn_v and ffn_up weights. */
  targets?: string[];
}

/** Writes a LoRA adapter GGUF (`general.type = adapter`, `<name>.lora_a` [in, rank] and `<name>.lora_b` [rank, out]). */
export async function writeLoraAdapter(path: string, options: LoraAdapterOptions): Promise<void> {
  const rank = options.rank ?? 4;
  const magnitude = options.magnitude ?? 0.5;
  const next = seededNormal(options.seed ?? 2);
  const targets = options.targets ?? options.base.tensors.map((t) => t.name).filter((name) => /^blk\.\d+\.(attn_q|attn_v|ffn_up)\.weight$/.test(name));
  const tensors: GgufWriterTensor[] = [];
  for (const target of targets) {
    const weight = options.base.tensors.find((t) => t.name === target);
    if (!weight || weight.dims.length !== 2) throw new Error(`writeLoraAdapter: the base model has no 2-D tensor "${target}"`);
    const [inputs, outputs] = weight.dims as [number, number];
    tensors.push(randomTensor(`${target}.lora_a`, [inputs, rank], next, magnitude), randomTensor(`${target}.lora_b`, [rank, outputs], next, magnitude));
  }
  await writeGguf(path, {
    metadata: {
      "general.architecture": gguf.str(options.architecture ?? options.base.architecture),
      "general.type": gguf.str("adapter"),
      "adapter.type": gguf.str("lora"),
      "adapter.lora.alpha": gguf.f32(options.alpha ?? rank),
    },
    tensors,
  });
}
