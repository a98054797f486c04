// The OpenAI-compatible backend against the scripted vLLM and SGLang servers (written from their
// source, tests/support/fakeVllmServer.ts and fakeSglangServer.ts): token ids and log-probs from
// each with the definition its values follow, adapter loads into every replica, the refusals named
// with the flag to set, a resumed load of a name already there, and the preflight before rollout 0.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { OpenAiAdapterLoadError } from "../../main/llm/openai/OpenAiAdapterLoadError.js";
import { OpenAiBackend } from "../../main/llm/openai/OpenAiBackend.js";
import { ServerPreflightError } from "../../main/llm/openai/ServerPreflightError.js";
import { startFakeSglangServer, type FakeSglangOptions } from "../support/fakeSglangServer.js";
import { startFakeVllmServer, type FakeVllmOptions } from "../support/fakeVllmServer.js";
import type { GenerationScript, ScriptedServer } from "../support/scriptedServer.js";

const model = "Qwen/Qwen3-0.6B";
const script: GenerationScript = ({ messages }) => ({ text: "ok go", promptTokenIds: [1, 2, messages.length + 2], tokenIds: [7, 8, 9], logprobs: [-0.1, -0.2, -0.3] });
const needs = { rank: 32, targets: ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"] };

let dir: string;
const open: Array<ScriptedServer | OpenAiBackend> = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-standins-"));
});
afterEach(async () => {
  for (const item of open.splice(0)) await ("dispose" in item ? item.dispose() : item.close());
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A PEFT-like adapter folder of rank `r`. */
function adapterFolder(name: string, r: number, targets = needs.targets): string {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, "adapter_config.json"), JSON.stringify({ r, lora_alpha: r, target_modules: targets, peft_type: "LORA" }));
  return path;
}

async function vllm(options: Partial<FakeVllmOptions> = {}, backendOptions: Partial<ConstructorParameters<typeof OpenAiBackend>[0]> = {}) {
  const server = await startFakeVllmServer(script, { model, ...options });
  const backend = new OpenAiBackend({ baseUrl: server.baseUrl, model, retryDelayMs: 5, maxRetries: 0, ...backendOptions });
  open.push(server, backend);
  return { server, backend };
}

async function sglang(options: Partial<FakeSglangOptions> = {}, backendOptions: Partial<ConstructorParameters<typeof OpenAiBackend>[0]> = {}) {
  const server = await startFakeSglangServer(script, { model, ...options });
  const backend = new OpenAiBackend({ baseUrl: server.baseUrl, model, retryDelayMs: 5, maxRetries: 0, ...backendOptions });
  open.push(server, backend);
  return { server, backend };
}

const messages = [{ role: "user" as const, content: "hello" }];

describe("token ids and log-probs from each server, with their definition", () => {
  it("vLLM, streamed: prompt and completion ids, log-probs recorded as its raw log-probs", async () => {
    const { server, backend } = await vllm();
    const reply = await backend.chat({ messages, sampling: { temperature: 0.6 } });
    expect(reply).toMatchObject({ promptTokenIds: [1, 2, 3], tokenIds: [7, 8, 9], tokenLogprobs: [-0.1, -0.2, -0.3], samplingUsed: { temperature: 0.6, logprobs: "raw" } });
    expect(server.chats()[0]!.body).toMatchObject({ stream: true, return_token_ids: true, return_tokens_as_token_ids: true, logprobs: true });
  });

  it("SGLang: a whole reply even where streaming is configured (it refuses ids in a stream), log-probs recorded as tempered", async () => {
    const { server, backend } = await sglang();
    const reply = await backend.chat({ messages, sampling: { temperature: 0.6 } });
    expect(reply).toMatchObject({ promptTokenIds: [1, 2, 3], tokenIds: [7, 8, 9], tokenLogprobs: [-0.1, -0.2, -0.3], samplingUsed: { logprobs: "tempered" } });
    expect(server.chats()[0]!.body).toMatchObject({ stream: false, return_prompt_token_ids: true, return_token_ids: true, return_meta_info: true });
  });

  it("llama.cpp's server: log-probs recorded as raw (post_sampling_probs off), an unknown server's as nothing", async () => {
    const llama = await vllm({}, { server: "llama.cpp" });
    expect((await llama.backend.chat({ messages })).samplingUsed?.logprobs).toBe("raw");
    const unknown = await vllm({}, { server: "ollama" });
    expect((await unknown.backend.chat({ messages })).samplingUsed?.logprobs).toBeUndefined();
  });

  it("SGLang without return_token_ids on its chat API: the ids come from meta_info.output_token_logprobs", async () => {
    const { backend } = await sglang({ noTokenIds: true });
    expect(await backend.chat({ messages })).toMatchObject({ promptTokenIds: [1, 2, 3], tokenIds: [7, 8, 9] });
  });
});

describe("loading adapters", () => {
  it("loads into every replica; a name a live server already holds (a resumed run) is taken as loaded", async () => {
    const first = await startFakeVllmServer(script, { model, maxLoraRank: 32 });
    const second = await startFakeVllmServer(script, { model, maxLoraRank: 32 });
    open.push(first, second);
    const backend = new OpenAiBackend({ baseUrl: first.baseUrl, model, replicas: [first.baseUrl, second.baseUrl], maxRetries: 0 });
    open.push(backend);
    const path = adapterFolder("a32", 32);
    await backend.loadAdapter(path, "run-1-r0-abc");
    expect([...first.loras.keys(), ...second.loras.keys()]).toEqual(["run-1-r0-abc", "run-1-r0-abc"]);
    // a second workbench process (the resumed run) loads the same name again: vLLM answers 400 "has already been loaded"
    const resumed = new OpenAiBackend({ baseUrl: first.baseUrl, model, replicas: [first.baseUrl, second.baseUrl], maxRetries: 0 });
    open.push(resumed);
    await resumed.loadAdapter(path, "run-1-r0-abc");
    expect(resumed.adapter).toBe("run-1-r0-abc");
    expect(first.requests.filter((request) => request.path === "/v1/load_lora_adapter").length).toBe(2);

    const sgl = await sglang();
    await sgl.backend.loadAdapter(path, "run-1-r0-abc");
    await new OpenAiBackend({ baseUrl: sgl.server.baseUrl, model, maxRetries: 0 }).loadAdapter(path, "run-1-r0-abc");
    expect([...sgl.server.loras.keys()]).toEqual(["run-1-r0-abc"]);
  });

  it("unloads from every replica; a replica that does not hold the name (a restarted server) is no error, a refusal is", async () => {
    const path = adapterFolder("u8", 8);
    for (const start of [() => startFakeVllmServer(script, { model }), () => startFakeSglangServer(script, { model })]) {
      const holder = await start();
      const restarted = await start();
      open.push(holder, restarted);
      await new OpenAiBackend({ baseUrl: holder.baseUrl, model, maxRetries: 0 }).loadAdapter(path, "run-1-r0-abc");
      const backend = new OpenAiBackend({ baseUrl: holder.baseUrl, model, replicas: [holder.baseUrl, restarted.baseUrl], maxRetries: 0 });
      open.push(backend);
      await backend.unloadAdapter("run-1-r0-abc");
      expect(holder.loras.size).toBe(0);
      expect(restarted.requests.filter((request) => request.path.endsWith("/unload_lora_adapter")).length).toBe(1);
    }
    const off = await sglang({ enableLora: false });
    await expect(off.backend.unloadAdapter("run-1-r0-abc")).rejects.toThrow(OpenAiAdapterLoadError);
  });

  it("names the flag when the server refuses: rank past the limit, LoRA off, run-time loading off", async () => {
    const rank32 = adapterFolder("b32", 32);
    const refusal = async (promise: Promise<unknown>) => {
      const error = await promise.then(() => null, (caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAiAdapterLoadError);
      return (error as Error).message;
    };
    expect(await refusal((await vllm()).backend.loadAdapter(rank32, "x"))).toMatch(/LoRA rank 32 is greater than max_lora_rank 16.*start vLLM with --max-lora-rank 32 or more/);
    expect(await refusal((await vllm({ enableLora: false })).backend.loadAdapter(rank32, "x"))).toMatch(/start vLLM with --enable-lora/);
    expect(await refusal((await vllm({ runtimeLoraUpdating: false })).backend.loadAdapter(rank32, "x"))).toMatch(/VLLM_ALLOW_RUNTIME_LORA_UPDATING=True/);
    expect(await refusal((await sglang({ maxLoraRank: 16 })).backend.loadAdapter(rank32, "x"))).toMatch(/with rank 32 is incompatible.*start SGLang with --max-lora-rank 32 or more/);
    expect(await refusal((await sglang({ enableLora: false })).backend.loadAdapter(rank32, "x"))).toMatch(/start SGLang with --enable-lora --max-lora-rank/);
  });
});

describe("the preflight before rollout 0", () => {
  const refused = async (backend: OpenAiBackend) => {
    const error = await backend.preflightTraining(needs).then(() => null, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServerPreflightError);
    return (error as Error).message;
  };

  it("passes a server that can train, after one tiny request", async () => {
    const v = await vllm({ maxLoraRank: 32 });
    expect(await v.backend.preflightTraining(needs)).toMatch(/^vllm at .*serves Qwen\/Qwen3-0.6B, loads LoRA adapters at run time .*at least 32.*returns token ids and log-probs/);
    expect(v.server.chats().map((chat) => chat.body.max_tokens)).toEqual([1]);
    // the probe load left no adapter behind
    expect(v.server.loras.size).toBe(0);
    const s = await sglang();
    expect(await s.backend.preflightTraining(needs)).toMatch(/^sglang at .* of rank 32/);
  });

  it("refuses vLLM without run-time loading, without LoRA, without token ids, or serving another model, naming the flag", async () => {
    expect(await refused((await vllm({ runtimeLoraUpdating: false })).backend)).toMatch(/start vLLM with VLLM_ALLOW_RUNTIME_LORA_UPDATING=True and --enable-lora --max-lora-rank 32/);
    expect(await refused((await vllm({ enableLora: false })).backend)).toMatch(/LoRA is off: start vLLM with --enable-lora --max-lora-rank 32/);
    expect(await refused((await vllm({ noTokenIds: true })).backend)).toMatch(/without prompt token ids,? .*return_token_ids/);
    expect(await refused((await vllm({}, { model: "Qwen/Qwen3-8B" })).backend)).toMatch(/backend.model "Qwen\/Qwen3-8B" is not served \(GET \/models lists "Qwen\/Qwen3-0.6B"\)/);
    // every refusal ends with the command line that serves the defaults
    expect(await refused((await vllm({ enableLora: false })).backend)).toMatch(/VLLM_ALLOW_RUNTIME_LORA_UPDATING=True vllm serve <model> --enable-lora --max-lora-rank 32 --max-loras 2/);
  });

  it("refuses SGLang without LoRA, with a rank limit below the run's, or without the target modules, naming the flag", async () => {
    expect(await refused((await sglang({ enableLora: false })).backend)).toMatch(/LoRA is off: start SGLang with --enable-lora --max-lora-rank 32 --lora-target-modules all/);
    expect(await refused((await sglang({ maxLoraRank: 16 })).backend)).toMatch(/--max-lora-rank is 16, below the adapters' rank 32 \(training.hyper.rank\): start SGLang with --max-lora-rank 32/);
    expect(await refused((await sglang({ loraTargetModules: ["q_proj", "v_proj"] })).backend)).toMatch(/--lora-target-modules lacks k_proj, o_proj, gate_proj, up_proj, down_proj/);
  });

  it("refuses a server that cannot load adapters at all", async () => {
    const { backend } = await vllm({}, { server: "llama.cpp" });
    expect(await refused(backend)).toMatch(/llama.cpp cannot load LoRA adapters at run time: train against vLLM or SGLang/);
  });
});
