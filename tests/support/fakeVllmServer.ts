// A scripted vLLM OpenAI-compatible server (V1 engine), answering field for field as vLLM does for
// every route the workbench calls. Written from vllm-project/vllm:
// - vllm/entrypoints/openai/protocol.py: ChatCompletionRequest (`return_token_ids`,
//   `return_tokens_as_token_ids`, `logprobs`), ChatCompletionResponse / ChatCompletionStreamResponse
//   (`prompt_token_ids` on the response or the first chunk, `token_ids` per choice),
//   ChatCompletionLogProbsContent (`token`, `logprob`, `bytes`, `top_logprobs`), ModelCard,
//   ErrorResponse `{"error": {"message", "type", "param", "code"}}`;
// - vllm/entrypoints/openai/serving_chat.py: a token named `token_id:<id>` with
//   `return_tokens_as_token_ids`;
// - vllm/entrypoints/openai/serving_models.py: `GET /v1/models` (the base model, then each LoRA as
//   `{id: lora_name, root: lora_path, parent: <base>}`), `load_lora_adapter` ("Both 'lora_name' and
//   'lora_path' must be provided.", "The lora adapter '<name>' has already been loaded.", 200 text
//   "Success: LoRA adapter '<name>' added successfully."), `unload_lora_adapter` ("The lora adapter
//   '<name>' cannot be found.", 404); the model check of serving_engine.py ("The model `<m>` does
//   not exist.", 404 NotFoundError);
// - vllm/entrypoints/openai/api_server.py: the LoRA routes exist only with
//   VLLM_ALLOW_RUNTIME_LORA_UPDATING=True (else FastAPI's 404 `{"detail": "Not Found"}`);
// - vllm/v1/worker/lora_model_runner_mixin.py: "LoRA is not enabled. Use --enable-lora to enable
//   LoRA." without --enable-lora; vllm/lora/worker_manager.py: "LoRA rank <r> is greater than
//   max_lora_rank <m>." (--max-lora-rank defaults to 16: vllm/config/lora.py), a folder without an
//   adapter: "No adapter found for <path>" (404 NotFoundError);
// - vllm/v1/sample/sampler.py: log-probs are `raw_logprobs` by default (the full softmax of the
//   unprocessed logits at temperature 1); the script supplies values under that definition.
import { messagesOf, readPeftConfig, startScriptedServer, type GenerationScript, type RecordedRequest, type ScriptedServer } from "./scriptedServer.js";

export interface FakeVllmOptions {
  /** The served model name (`--served-model-name`). */
  model: string;
  /** --enable-lora. Defaults to true. */
  enableLora?: boolean;
  /** --max-lora-rank. Defaults to vLLM's 16. */
  maxLoraRank?: number;
  /** VLLM_ALLOW_RUNTIME_LORA_UPDATING=True. Defaults to true. */
  runtimeLoraUpdating?: boolean;
  /** A vLLM before `return_token_ids` (ignores the field, as pydantic ignores unknown keys). Defaults to false. */
  noTokenIds?: boolean;
}

export interface FakeVllmServer extends ScriptedServer {
  /** E.g. `http://127.0.0.1:40123/v1`. */
  baseUrl: string;
  /** LoRA name -> path, as loaded. */
  loras: Map<string, string>;
  chats(): RecordedRequest[];
}

const error = (status: number, type: string, message: string) => ({ status, json: { error: { message, type, param: null, code: status } } });

export async function startFakeVllmServer(script: GenerationScript, options: FakeVllmOptions): Promise<FakeVllmServer> {
  const loras = new Map<string, string>();
  const enableLora = options.enableLora ?? true;
  const maxLoraRank = options.maxLoraRank ?? 16;
  const runtime = options.runtimeLoraUpdating ?? true;
  const created = Math.floor(Date.now() / 1000);
  const server = await startScriptedServer((request) => {
    const { method, path, body } = request;
    if (method === "GET" && path === "/v1/models") {
      const base = { id: options.model, object: "model", created, owned_by: "vllm", root: options.model, parent: null, max_model_len: 4096, permission: [] };
      const cards = [...loras].map(([name, root]) => ({ id: name, object: "model", created, owned_by: "vllm", root, parent: options.model, max_model_len: null, permission: [] }));
      return { status: 200, json: { object: "list", data: [base, ...cards] } };
    }
    if (path === "/v1/load_lora_adapter" || path === "/v1/unload_lora_adapter") {
      if (!runtime || method !== "POST") return { status: 404, json: { detail: "Not Found" } };
      const name = typeof body.lora_name === "string" ? body.lora_name : "";
      if (path === "/v1/unload_lora_adapter") {
        if (!loras.has(name)) return error(404, "NotFoundError", `The lora adapter '${name}' cannot be found.`);
        loras.delete(name);
        return { status: 200, text: `Success: LoRA adapter '${name}' removed successfully.` };
      }
      const lora = typeof body.lora_path === "string" ? body.lora_path : "";
      if (!name || !lora) return error(400, "InvalidUserInput", "Both 'lora_name' and 'lora_path' must be provided.");
      if (loras.has(name)) return error(400, "InvalidUserInput", `The lora adapter '${name}' has already been loaded.`);
      if (!enableLora) return error(400, "BadRequestError", "LoRA is not enabled. Use --enable-lora to enable LoRA.");
      const config = readPeftConfig(lora);
      if (!config) return error(404, "NotFoundError", `Loading lora ${name} failed: No adapter found for ${lora}`);
      if (config.r > maxLoraRank) return error(400, "BadRequestError", `LoRA rank ${config.r} is greater than max_lora_rank ${maxLoraRank}.`);
      loras.set(name, lora);
      return { status: 200, text: `Success: LoRA adapter '${name}' added successfully.` };
    }
    if (method === "POST" && path === "/v1/chat/completions") {
      const model = String(body.model ?? "");
      if (model !== options.model && !loras.has(model)) return error(404, "NotFoundError", `The model \`${model}\` does not exist.`);
      const adapter = model === options.model ? null : model;
      const generation = script({ messages: messagesOf(body), adapter, temperature: typeof body.temperature === "number" ? body.temperature : 1, body });
      const ids = body.return_token_ids === true && !options.noTokenIds;
      const asIds = body.return_tokens_as_token_ids === true;
      const logprobEntry = (i: number) => ({ token: asIds ? `token_id:${generation.tokenIds[i]}` : `t${i}`, logprob: generation.logprobs[i], bytes: [], top_logprobs: [] });
      const usage = { prompt_tokens: generation.promptTokenIds.length, completion_tokens: generation.tokenIds.length, total_tokens: generation.promptTokenIds.length + generation.tokenIds.length };
      if (body.stream === true) {
        const chunk = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ id: "chatcmpl-v", object: "chat.completion.chunk", created, model, choices: [{ index: 0, logprobs: null, finish_reason: null, ...choice }], ...extra });
        return {
          status: 200,
          sse: [
            chunk({ delta: { role: "assistant", content: "" } }, ids ? { prompt_token_ids: generation.promptTokenIds } : {}),
            // one chunk for the whole text: vLLM sends one per detokenised step; the ids and log-probs of every step are the same fields
            chunk({ delta: { content: generation.text }, ...(body.logprobs === true ? { logprobs: { content: generation.tokenIds.map((_, i) => logprobEntry(i)) } } : {}), ...(ids ? { token_ids: generation.tokenIds } : {}) }),
            chunk({ delta: {}, finish_reason: "stop", stop_reason: null }),
            ...(body.stream_options ? [{ id: "chatcmpl-v", object: "chat.completion.chunk", created, model, choices: [], usage }] : []),
            "[DONE]",
          ],
        };
      }
      return {
        status: 200,
        json: {
          id: "chatcmpl-v",
          object: "chat.completion",
          created,
          model,
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: generation.text, reasoning_content: null, tool_calls: [] },
              logprobs: body.logprobs === true ? { content: generation.tokenIds.map((_, i) => logprobEntry(i)) } : null,
              finish_reason: "stop",
              stop_reason: null,
              ...(ids ? { token_ids: generation.tokenIds } : {}),
            },
          ],
          usage,
          prompt_logprobs: null,
          ...(ids ? { prompt_token_ids: generation.promptTokenIds } : {}),
        },
      };
    }
    return { status: 404, json: { detail: "Not Found" } };
  });
  return { ...server, baseUrl: `${server.root}/v1`, loras, chats: () => server.requests.filter((request) => request.path === "/v1/chat/completions") };
}
