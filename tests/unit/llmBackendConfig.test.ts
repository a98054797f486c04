import { describe, expect, it } from "vitest";
import { parseBackendConfig } from "../../shared/backendConfig.js";
import { parseRunConfig } from "../../shared/runConfig.js";
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
  it('reads contextSize as a number, "auto" or {min, max}, and refuses anything else by key', () => {
    const llama = (contextSize: unknown) => parseBackendConfig({ kind: "llama", modelPath: "m.gguf", contextSize }, "c.json");
    expect(llama("auto")).toMatchObject({ contextSize: "auto" });
    expect(llama({ min: 2048, max: 8192 })).toMatchObject({ contextSize: { min: 2048, max: 8192 } });
    expect(llama(4096)).toMatchObject({ contextSize: 4096 });
    expect(parseBackendConfig({ kind: "llama", modelPath: "m.gguf" }, "c.json")).not.toHaveProperty("contextSize");
    expect(() => llama("big")).toThrow(/c\.json: backend\.contextSize: expected an integer >= 16, "auto" or \{min, max\}, got "big"/);
    expect(() => llama({ min: 9000, max: 100 })).toThrow(/backend\.contextSize\.min: expected at most max \(100\), got 9000/);
    expect(() => llama({ mx: 100 })).toThrow(/backend\.contextSize\.mx: unknown key/);
    expect(parseBackendConfig({ kind: "llama", modelPath: "m.gguf", toolInstructions: true }, "c")).toMatchObject({ toolInstructions: true });
  });
  it("reads the openai server kind and refuses an unknown one", () => {
    expect(parseBackendConfig({ kind: "openai", baseUrl: "http://h/v1", model: "m", server: "sglang" }, "c")).toMatchObject({ server: "sglang" });
    expect(() => parseBackendConfig({ kind: "openai", baseUrl: "http://h/v1", model: "m", server: "tgi" }, "c")).toThrow(/backend\.server: expected "vllm", "sglang", "ollama", "llama\.cpp", "openai", got "tgi"/);
  });
  it('reads thinking for designer, agent and hint: "off" by default (the launchers\' enable_thinking false)', () => {
    const base = { db: "w.sqlite", seed: 1, iterations: 1, envsPerIteration: 1, plays: 1, hintPlays: 1, maxTurns: 2, backend: { kind: "openai", baseUrl: "http://h/v1", model: "m" }, corpus: null };
    const defaults = parseRunConfig(base, "run.json");
    expect([defaults.designer.thinking, defaults.agent.thinking, defaults.hint.thinking]).toEqual(["off", "off", "off"]);
    const set = parseRunConfig({ ...base, designer: { thinking: "on" }, agent: { thinking: "auto" }, hint: { thinking: "off" } }, "run.json");
    expect([set.designer.thinking, set.agent.thinking, set.hint.thinking]).toEqual(["on", "auto", "off"]);
    expect(() => parseRunConfig({ ...base, agent: { thinking: true } }, "run.json")).toThrow(/run\.json: agent\.thinking/);
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
