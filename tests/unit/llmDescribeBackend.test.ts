import { describe, expect, it } from "vitest";
import { describeBackend } from "../../main/llm/describeBackend.js";
import { OpenAiBackend } from "../../main/llm/openai/OpenAiBackend.js";

describe("describeBackend (the line `spade run` prints when a run starts)", () => {
  it("names the backend, its adapter and its layout", async () => {
    const backend = new OpenAiBackend({ baseUrl: "http://127.0.0.1:9/v1", model: "qwen3", adapter: "round-2", maxConcurrency: 16, server: "vllm" });
    expect(describeBackend(backend)).toBe("backend openai:round-2@http://127.0.0.1:9/v1 (adapter round-2): 16 requests in flight at http://127.0.0.1:9/v1");
    await backend.dispose();
  });
  it("falls back to the parallelism for a backend without a layout", () => {
    const scripted = { name: "scripted", parallelism: 1, adapter: null, chat: () => Promise.reject(new Error("unused")), dispose: () => Promise.resolve() };
    expect(describeBackend(scripted)).toBe("backend scripted: 1 call at once");
  });
});
