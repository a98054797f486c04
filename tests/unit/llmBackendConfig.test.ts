import { describe, expect, it } from "vitest";
import { parseBackendConfig } from "../../shared/backendConfig.js";
import { InputError } from "../../shared/validation/InputError.js";
import { createBackend } from "../../main/llm/createBackend.js";
import { OpenAiBackend } from "../../main/llm/openai/OpenAiBackend.js";

describe("parseBackendConfig", () => {
  it("reads a llama config with every setting", () => {
    const config = parseBackendConfig(
      { kind: "llama", modelPath: "m.gguf", gpu: false, threads: 2, contextSize: 2048, flashAttention: true, batchSize: 256, sequences: 4, lora: [{ path: "a.gguf", scale: 0.5 }, { path: "b.gguf" }], modelsDir: "models" },
      "config.json",
    );
    expect(config).toEqual({
      kind: "llama",
      modelPath: "m.gguf",
      gpu: false,
      threads: 2,
      contextSize: 2048,
      flashAttention: true,
      batchSize: 256,
      sequences: 4,
      lora: [{ path: "a.gguf", scale: 0.5 }, { path: "b.gguf" }],
      modelsDir: "models",
    });
  });
  it("reads an openai config and leaves unset fields out", () => {
    expect(parseBackendConfig({ kind: "openai", baseUrl: "http://127.0.0.1:8000/v1", model: "qwen3", adapter: "env-v3", maxConcurrency: 16 }, "c")).toEqual({
      kind: "openai",
      baseUrl: "http://127.0.0.1:8000/v1",
      model: "qwen3",
      adapter: "env-v3",
      maxConcurrency: 16,
    });
  });
  it("names the file, the key and the value when a type is wrong", () => {
    expect(() => parseBackendConfig({ kind: "llama", modelPath: "m.gguf", threads: "x" }, "config.json")).toThrow(
      'config.json: backend.threads: expected an integer in [1, 256], got "x"',
    );
    expect(() => parseBackendConfig({ kind: "llama", modelPath: "m.gguf", gpu: "rocm" }, "config.json")).toThrow(/backend\.gpu: expected "auto", "cuda", "metal", "vulkan" or false, got "rocm"/);
    expect(() => parseBackendConfig({ kind: "llama", modelPath: "m.gguf", lora: [{ path: "a", scale: "1" }] }, "c")).toThrow(/backend\.lora\[0\]\.scale: expected a number/);
    expect(() => parseBackendConfig({ kind: "openai", baseUrl: "localhost:8000", model: "m" }, "c")).toThrow(/backend\.baseUrl: expected an http:\/\/ or https:\/\/ URL/);
  });
  it("refuses unknown keys and keys of the other kind", () => {
    expect(() => parseBackendConfig({ kind: "llama", modelPath: "m", treads: 2 }, "c")).toThrow(/backend\.treads: unknown key/);
    expect(() => parseBackendConfig({ kind: "llama", modelPath: "m", baseUrl: "http://x" }, "c")).toThrow(/backend\.baseUrl: unknown key/);
    expect(() => parseBackendConfig({ kind: "openai", baseUrl: "http://x", model: "m", sequences: 2 }, "c")).toThrow(InputError);
  });
  it("requires kind and the kind's required fields", () => {
    expect(() => parseBackendConfig({ modelPath: "m" }, "c")).toThrow(/backend\.kind: expected one of "llama", "openai", got nothing/);
    expect(() => parseBackendConfig({ kind: "openai", baseUrl: "http://x" }, "c")).toThrow(/backend\.model: expected a string, got nothing/);
  });
});

describe("createBackend", () => {
  it("makes an OpenAI backend, with the API key from the named environment variable", async () => {
    const backend = await createBackend({ kind: "openai", baseUrl: "http://127.0.0.1:9/v1/", model: "m", adapter: "lora-7", apiKeyEnv: "MY_KEY" }, { env: { MY_KEY: "k" } });
    expect(backend).toBeInstanceOf(OpenAiBackend);
    expect(backend.name).toBe("openai:lora-7@http://127.0.0.1:9/v1");
    expect(backend.adapter).toBe("lora-7");
    await backend.dispose();
  });
  it("refuses a missing API key variable and a bad config before loading anything", async () => {
    await expect(createBackend({ kind: "openai", baseUrl: "http://x", model: "m", apiKeyEnv: "NOPE" }, { env: {}, where: "run.json" })).rejects.toThrow(
      "run.json: backend.apiKeyEnv: the environment variable NOPE is not set",
    );
    await expect(createBackend({ kind: "llama", modelPath: "m.gguf", sequences: 0 }, { where: "run.json" })).rejects.toThrow(/run\.json: backend\.sequences/);
  });
  it("resolves a relative model path against baseDir", async () => {
    await expect(createBackend({ kind: "llama", modelPath: "nope.gguf" }, { baseDir: "/tmp/spade-no-such-dir" })).rejects.toThrow(
      /\/tmp\/spade-no-such-dir\/nope\.gguf: cannot open the file \(ENOENT\)/,
    );
  });
});
