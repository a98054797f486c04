import { describe, expect, it } from "vitest";
import type { ChatResult } from "../../shared/llm.js";
import type { ChatRequest, LlmBackend } from "../../main/llm/LlmBackend.js";
import { writeHint } from "../../main/selfplay/writeHint.js";
import { parseRunConfig } from "../../shared/runConfig.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { getHint, insertHint } from "../../main/store/queries/hints.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { getSampledTokens, sampledTokensOf, setSampledTokens } from "../../main/store/queries/sampledTokens.js";

/** A backend that answers every call with one reply and remembers what it was asked. */
function recordingBackend(reply: Partial<ChatResult>): { backend: LlmBackend; requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  const backend: LlmBackend = {
    name: "recording",
    parallelism: 1,
    adapter: "run-1-r0",
    async chat(request) {
      requests.push(request);
      return { text: "Think about the remainders first.", reasoning: null, finishReason: "stop", promptTokens: 3, completionTokens: 2, ...reply };
    },
    async dispose() {},
  };
  return { backend, requests };
}

describe("the hint writer", () => {
  const sampling = { temperature: 0.3, maxTokens: 64, seed: 7 };

  it("asks with thinking off unless the config says otherwise, as the launchers do", async () => {
    const { backend, requests } = recordingBackend({});
    await writeHint(backend, "class AEnv: pass", "\\boxed{4}", sampling);
    await writeHint(backend, "class AEnv: pass", "\\boxed{4}", sampling, { thinking: "on" });
    expect(requests.map((request) => request.thinking)).toEqual(["off", "on"]);
  });

  it("gives back the call's token record, which is stored with the hint and its adapter", async () => {
    const { backend } = recordingBackend({ promptTokenIds: [1, 2, 3], tokenIds: [9, 8], tokenLogprobs: [-0.5, -0.25], samplingUsed: { temperature: 0.3, seed: 7 } });
    const written = await writeHint(backend, "class AEnv: pass", "\\boxed{4}", sampling);
    const db = openDatabase(":memory:");
    const env = insertEnvironment(db, { source: "designer", code: "class AEnv: pass", valid: true });
    const id = insertHint(db, { environmentId: env, source: "writer", text: written.text, prompt: written.prompt, rawReply: written.rawReply, adapter: backend.adapter });
    setSampledTokens(db, "hints", id, sampledTokensOf(written.result!));
    expect(getHint(db, env)).toMatchObject({ text: "Think about the remainders first.", adapter: "run-1-r0" });
    expect(getSampledTokens(db, "hints", id)).toEqual({ promptTokenIds: [1, 2, 3], tokenIds: [9, 8], tokenLogprobs: [-0.5, -0.25], sampling: { temperature: 0.3, seed: 7 } });
    db.close();
  });

  it("asks again on an empty reply, up to three calls in all with a new seed each, as the reference's writer retries", async () => {
    const replies = ["", "   ", "Count the doors first."];
    const requests: ChatRequest[] = [];
    const backend: LlmBackend = {
      name: "scripted",
      parallelism: 1,
      adapter: null,
      async chat(request) {
        requests.push(request);
        return { text: replies[requests.length - 1] ?? "unexpected", reasoning: null, finishReason: "stop", promptTokens: 3, completionTokens: 1 };
      },
      async dispose() {},
    };
    const written = await writeHint(backend, "class AEnv: pass", "\\boxed{4}", sampling, { backoffMs: () => 0 });
    expect(written).toMatchObject({ text: "Count the doors first.", empty: false, calls: 3 });
    expect(requests.map((request) => request.sampling?.seed)).toEqual([7, 8, 9]);
  });

  it("gives up after three empty replies: no hint, marked empty, the last reply kept", async () => {
    const { backend, requests } = recordingBackend({ text: "" });
    const written = await writeHint(backend, "class AEnv: pass", "\\boxed{4}", sampling, { backoffMs: () => 0 });
    expect(written).toMatchObject({ text: "", empty: true, calls: 3, rawReply: "" });
    expect(requests).toHaveLength(3);
    const once = recordingBackend({});
    expect(await writeHint(once.backend, "class AEnv: pass", "\\boxed{4}", sampling)).toMatchObject({ empty: false, calls: 1 });
    expect(once.requests).toHaveLength(1);
  });

  it("samples at the reference's top-p 0.9 and top-k 20 (its adapter's defaults), the run config's hint defaults", async () => {
    const { backend, requests } = recordingBackend({});
    const config = parseRunConfig({ db: "w.sqlite", backend: { kind: "openai", baseUrl: "http://127.0.0.1:1/v1", model: "m" }, corpus: null }, "run.json");
    expect(config.hint).toMatchObject({ temperature: 0.3, topP: 0.9, topK: 20 });
    await writeHint(backend, "class AEnv: pass", "\\boxed{4}", { ...sampling, topP: config.hint.topP, topK: config.hint.topK });
    expect(requests[0]!.sampling).toMatchObject({ temperature: 0.3, topP: 0.9, topK: 20, seed: 7 });
  });

  it("retries a backend exception as the reference's generate_hint_with_retry: 3 calls, waiting 2^n s between, then no hint", async () => {
    const waits: number[] = [];
    const backoffMs = (failure: number) => (waits.push(failure), 0);
    let calls = 0;
    const flaky: LlmBackend = {
      name: "flaky",
      parallelism: 1,
      adapter: null,
      async chat() {
        calls++;
        if (calls < 3) throw new Error(`connection refused (${calls})`);
        return { text: "Try the small numbers first.", reasoning: null, finishReason: "stop", promptTokens: 3, completionTokens: 1 };
      },
      async dispose() {},
    };
    expect(await writeHint(flaky, "class AEnv: pass", "\\boxed{4}", sampling, { backoffMs })).toMatchObject({ text: "Try the small numbers first.", empty: false, calls: 3, error: null });
    expect(waits).toEqual([0, 1]);
    const down: LlmBackend = { ...flaky, async chat() { throw new Error("server gone"); } };
    const written = await writeHint(down, "class AEnv: pass", "\\boxed{4}", sampling, { backoffMs: () => 0 });
    expect(written).toMatchObject({ text: "", empty: true, calls: 3, result: null, error: "server gone" });
    // A fatal error (a prompt that cannot fit, a stop) is not the backend's blip: it ends the call at once.
    await expect(writeHint(down, "class AEnv: pass", "\\boxed{4}", sampling, { backoffMs: () => 0, isFatal: () => true })).rejects.toThrow("server gone");
  });
});
