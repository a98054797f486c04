// A scripted SGLang server, answering field for field as SGLang does for every route the workbench
// calls. Written from sgl-project/sglang:
// - python/sglang/srt/entrypoints/openai/protocol.py: ChatCompletionRequest (`return_prompt_token_ids`,
//   `return_token_ids`, `return_meta_info`, all false by default; `lora_path`; `model`
//   "base:adapter"), ChatCompletionResponseChoice (`prompt_token_ids`, `token_ids`, `meta_info`
//   per choice), ChoiceLogprobs / ChatCompletionTokenLogprob (`token` as text), ModelCard
//   (`owned_by: "sglang"`), ErrorResponse `{"object": "error", "message", "type", "param", "code"}`;
// - python/sglang/srt/entrypoints/openai/serving_chat.py: `_convert_to_internal_request` refuses
//   `return_prompt_token_ids` (and `return_meta_info`) with `stream: true` ("... is not supported
//   with streaming. Please set stream=false ..."), 400 BadRequest; `_build_chat_response` fills
//   `token_ids` from `output_ids` and `prompt_token_ids` when asked;
// - python/sglang/srt/managers/tokenizer_manager.py: `meta_info.output_token_logprobs` as
//   `[logprob, token_id, text]`; `load_lora_adapter` and `unload_lora_adapter` refuse without
//   --enable-lora ("LoRA is not enabled. Please set `--enable-lora` to enable LoRA.");
// - python/sglang/srt/lora/lora_manager.py `validate_new_adapter`: "Failed to load LoRA adapter
//   <name> because it is already loaded"; "LoRA adapter <name> with rank <r> is incompatible with the
//   current LoRA memory pool configuration. Please ensure that the LoRA adapter's rank is within the
//   configured `--max-lora-rank` and that the target modules are included in
//   `--lora-target-modules`.";
// - python/sglang/srt/entrypoints/http_server.py: `/load_lora_adapter` and `/unload_lora_adapter`
//   at the root (not under /v1) answering LoadLoRAAdapterReqOutput `{success, error_message,
//   loaded_adapters}` (200, or 400 on failure); `/get_server_info` with the server args
//   (`enable_lora`, `max_lora_rank`, `lora_target_modules`, `max_loras_per_batch`) and `version`;
//   `GET /v1/models` lists the base model, then each loaded adapter with `parent` = the base;
// - python/sglang/srt/lora/lora_registry.py `unregister`: unloading a name that is not loaded raises
//   "LoRA with name <name> does not exist. Loaded LoRAs: dict_keys([...])", which the tokenizer
//   manager's `unload_lora_adapter` returns as `{success: false, error_message}` (loaded_adapters
//   null), 400;
// - not from SGLang's source (any refusal does): the text for a folder without adapter_config.json;
// - python/sglang/srt/layers/sampler.py: log-probs are log softmax(logits / temperature) over the
//   whole vocabulary (temperature 1 when greedy); the script supplies values under that definition.
import { messagesOf, readPeftConfig, startScriptedServer, type GenerationScript, type RecordedRequest, type ScriptedServer } from "./scriptedServer.js";

export interface FakeSglangOptions {
  /** --served-model-name. */
  model: string;
  /** --enable-lora. Defaults to true. */
  enableLora?: boolean;
  /** --max-lora-rank. Defaults to 32 (SGLang has no default when no adapter is preloaded: it must be given). */
  maxLoraRank?: number;
  /** --lora-target-modules. Defaults to "all". */
  loraTargetModules?: string[];
  /** A SGLang whose chat API has no `return_token_ids` (ids only in `meta_info`). Defaults to false. */
  noTokenIds?: boolean;
}

export interface FakeSglangServer extends ScriptedServer {
  /** E.g. `http://127.0.0.1:40123/v1`. */
  baseUrl: string;
  /** LoRA name -> path, as loaded. */
  loras: Map<string, string>;
  chats(): RecordedRequest[];
}

const error = (message: string, status = 400) => ({ status, json: { object: "error", message, type: "BadRequest", param: null, code: status } });

export async function startFakeSglangServer(script: GenerationScript, options: FakeSglangOptions): Promise<FakeSglangServer> {
  const loras = new Map<string, string>();
  const enableLora = options.enableLora ?? true;
  const maxLoraRank = options.maxLoraRank ?? 32;
  const targets = options.loraTargetModules ?? ["all"];
  const created = Math.floor(Date.now() / 1000);
  const update = (success: boolean, message = "") => ({ status: success ? 200 : 400, json: { success, error_message: message, loaded_adapters: Object.fromEntries(loras) } });
  // a ValueError the tokenizer manager catches before the scheduler answers: no loaded_adapters
  const refuse = (message: string) => ({ status: 400, json: { success: false, error_message: message, loaded_adapters: null } });
  const loraOff = "LoRA is not enabled. Please set `--enable-lora` to enable LoRA.";
  const server = await startScriptedServer((request) => {
    const { method, path, body } = request;
    if (method === "GET" && path === "/v1/models") {
      const base = { id: options.model, object: "model", created, owned_by: "sglang", root: options.model, parent: null, max_model_len: 4096 };
      const cards = [...loras].map(([name, root]) => ({ id: name, object: "model", created, owned_by: "sglang", root, parent: options.model, max_model_len: null }));
      return { status: 200, json: { object: "list", data: [base, ...(enableLora ? cards : [])] } };
    }
    if (method === "GET" && path === "/get_server_info") {
      return {
        status: 200,
        json: { model_path: options.model, served_model_name: options.model, enable_lora: enableLora, max_lora_rank: enableLora ? maxLoraRank : null, lora_target_modules: enableLora ? targets : null, max_loras_per_batch: 8, lora_paths: null, dp_size: 1, version: "0.5.4" },
      };
    }
    if (method === "POST" && path === "/load_lora_adapter") {
      const name = String(body.lora_name ?? "");
      const lora = String(body.lora_path ?? "");
      if (!enableLora) return refuse(loraOff);
      if (loras.has(name)) return update(false, `Failed to load LoRA adapter ${name} because it is already loaded`);
      const config = readPeftConfig(lora);
      if (!config) return update(false, `Can't find adapter_config.json in ${lora}`);
      const coveredTargets = targets.includes("all") || config.target_modules.every((module) => targets.includes(module));
      if (config.r > maxLoraRank || !coveredTargets) {
        return update(
          false,
          `LoRA adapter ${name} with rank ${config.r} is incompatible with the current LoRA memory pool configuration. Please ensure that the LoRA adapter's rank is within the configured \`--max-lora-rank\` and that the target modules are included in \`--lora-target-modules\`.`,
        );
      }
      loras.set(name, lora);
      return update(true);
    }
    if (method === "POST" && path === "/unload_lora_adapter") {
      const name = String(body.lora_name ?? "");
      if (!enableLora) return refuse(loraOff);
      if (!loras.has(name)) return refuse(`LoRA with name ${name} does not exist. Loaded LoRAs: dict_keys([${[...loras.keys()].map((key) => `'${key}'`).join(", ")}])`);
      loras.delete(name);
      return update(true);
    }
    if (method === "POST" && path === "/v1/chat/completions") {
      if (body.stream === true && body.return_prompt_token_ids === true) return error("return_prompt_token_ids is not supported with streaming. Please set stream=false when using return_prompt_token_ids=true.");
      if (body.stream === true && body.return_meta_info === true) return error("return_meta_info is not supported with streaming. Please set stream=false when using return_meta_info=true.");
      const model = String(body.model ?? "");
      const [servedName, fromModel] = model.includes(":") ? model.split(":", 2) : [model, undefined];
      if (servedName !== options.model) return error(`The model \`${servedName}\` does not exist.`, 404);
      const adapter = typeof body.lora_path === "string" ? body.lora_path : (fromModel ?? null);
      if (adapter !== null && !loras.has(adapter)) return error(`The following requested LoRA adapters are not loaded: {'${adapter}'}\nLoaded adapters: {${[...loras.keys()].map((name) => `'${name}'`).join(", ")}}.`);
      const generation = script({ messages: messagesOf(body), adapter, temperature: typeof body.temperature === "number" ? body.temperature : 1, body });
      const logprobs = body.logprobs === true;
      const usage = { prompt_tokens: generation.promptTokenIds.length, total_tokens: generation.promptTokenIds.length + generation.tokenIds.length, completion_tokens: generation.tokenIds.length, prompt_tokens_details: null, reasoning_tokens: 0 };
      if (body.stream === true) {
        const chunk = (choice: Record<string, unknown>) => ({ id: "sgl-1", object: "chat.completion.chunk", created, model, choices: [{ index: 0, logprobs: null, finish_reason: null, matched_stop: null, ...choice }] });
        return { status: 200, sse: [chunk({ delta: { role: "assistant", content: "" } }), chunk({ delta: { content: generation.text } }), chunk({ delta: {}, finish_reason: "stop" }), "[DONE]"] };
      }
      const metaInfo = { id: "sgl-1", finish_reason: { type: "stop", matched: null }, prompt_tokens: generation.promptTokenIds.length, completion_tokens: generation.tokenIds.length, ...(logprobs ? { output_token_logprobs: generation.tokenIds.map((id, i) => [generation.logprobs[i], id, `t${i}`]) } : {}) };
      return {
        status: 200,
        json: {
          id: "sgl-1",
          object: "chat.completion",
          created,
          model,
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: generation.text, reasoning_content: null, tool_calls: null },
              logprobs: logprobs ? { content: generation.tokenIds.map((_, i) => ({ token: `t${i}`, bytes: [], logprob: generation.logprobs[i], top_logprobs: [] })) } : null,
              finish_reason: "stop",
              matched_stop: null,
              ...(body.return_prompt_token_ids === true || (body.return_token_ids === true && !options.noTokenIds) ? { prompt_token_ids: generation.promptTokenIds } : {}),
              ...(body.return_token_ids === true && !options.noTokenIds ? { token_ids: generation.tokenIds } : {}),
              ...(body.return_meta_info === true ? { meta_info: metaInfo } : {}),
            },
          ],
          usage,
          metadata: { weight_version: "default" },
        },
      };
    }
    return { status: 404, json: { detail: "Not Found" } };
  });
  return { ...server, baseUrl: `${server.root}/v1`, loras, chats: () => server.requests.filter((request) => request.path === "/v1/chat/completions") };
}
