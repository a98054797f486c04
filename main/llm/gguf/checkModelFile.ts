import { GgufFormatError } from "./GgufFormatError.js";
import type { GgufInfo, GgufValue } from "./GgufInfo.js";
import { readGgufInfo } from "./readGgufInfo.js";

/**
 * Metadata keys each architecture must have: llama.cpp aborts the whole process (rather than
 * failing the load) when some of these are missing, so they are checked in JavaScript first.
 */
const requiredArchitectureKeys: Readonly<Record<string, readonly string[]>> = {
  llama: [
    "context_length",
    "embedding_length",
    "block_count",
    "feed_forward_length",
    "attention.head_count",
    "attention.layer_norm_rms_epsilon",
  ],
};

/**
 * Reads and checks a model GGUF before it is handed to node-llama-cpp: readable, complete, a model
 * (not an adapter), with an architecture, a tokenizer, and, for llama, the keys whose absence
 * crashes llama.cpp. Returns the parsed info; throws GgufFormatError naming the file and the problem.
 */
export async function checkModelFile(path: string): Promise<GgufInfo> {
  const info = await readGgufInfo(path);
  const fail = (problem: string): never => {
    throw new GgufFormatError(path, problem);
  };
  if (info.fileType !== null && info.fileType !== "model") {
    fail(`general.type is "${info.fileType}", expected a model (a LoRA adapter goes in the lora option)`);
  }
  const architecture = info.architecture ?? fail("general.architecture is missing, so llama.cpp cannot tell which model this is");
  if (info.tensorCount === 0) fail("the file holds no tensors");
  for (const key of requiredArchitectureKeys[architecture] ?? []) {
    requireNumber(info, `${architecture}.${key}`, fail);
  }
  const tokenizer = info.metadata["tokenizer.ggml.model"];
  if (typeof tokenizer !== "string") fail(`tokenizer.ggml.model is ${describe(tokenizer)}, expected a string such as "llama" or "gpt2"`);
  if (tokenizer !== "none") {
    requireArray(info, "tokenizer.ggml.tokens", fail);
    if (tokenizer === "gpt2") requireArray(info, "tokenizer.ggml.merges", fail);
  }
  return info;
}

function requireNumber(info: GgufInfo, key: string, fail: (problem: string) => never): void {
  const value = info.metadata[key];
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    fail(`${key} is ${describe(value)}, expected a positive number (llama.cpp needs it to load a ${info.architecture} model)`);
  }
}

function requireArray(info: GgufInfo, key: string, fail: (problem: string) => never): void {
  const value = info.metadata[key];
  if (typeof value !== "object" || value.length === 0) {
    fail(`${key} is ${describe(value)}, expected a non-empty array (the tokenizer needs it)`);
  }
}

export function describe(value: GgufValue | undefined): string {
  if (value === undefined) return "missing";
  if (typeof value === "object") return `an array of ${value.length}`;
  return JSON.stringify(typeof value === "bigint" ? value.toString() : value);
}
