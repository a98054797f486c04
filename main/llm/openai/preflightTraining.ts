import type { OpenAiServerKind } from "../../../shared/backendConfig.js";
import type { ChatResult } from "../../../shared/llm.js";
import { excerpt } from "./excerpt.js";
import { ServerPreflightError } from "./ServerPreflightError.js";

/** What a training run needs from the server. */
export interface TrainingNeeds {
  /** The LoRA rank the trainer writes. */
  rank: number;
  /** The Hugging Face modules the adapters adapt (q_proj ... down_proj). */
  targets: readonly string[];
}

export interface PreflightTarget {
  baseUrl: string;
  /** Every replica's base URL (loads go to each). */
  replicas: readonly string[];
  model: string;
  server: OpenAiServerKind | null;
  headers: Record<string, string>;
  /** One chat call through the backend (the request it would send in a run). */
  chat: () => Promise<ChatResult>;
  signal: AbortSignal;
}

/** The server flags the defaults need, in the words of each server's own CLI. */
const flags = {
  vllm: (rank: number) => `VLLM_ALLOW_RUNTIME_LORA_UPDATING=True vllm serve <model> --enable-lora --max-lora-rank ${rank} --max-loras 2`,
  sglang: (rank: number) => `python -m sglang.launch_server --model-path <model> --enable-lora --max-lora-rank ${rank} --lora-target-modules all`,
};

/**
 * Asks the server, before rollout 0, whether a training run can work against it, and throws
 * ServerPreflightError naming each flag to set when it cannot:
 * - the server is vLLM or SGLang (the only ones that load adapters at run time);
 * - `GET /models` lists the configured model;
 * - LoRA at run time, on every replica: SGLang's `/get_server_info` says `enable_lora`,
 *   `max_lora_rank` and `lora_target_modules` (http_server.py, server_args.py); vLLM reports
 *   neither, so a load of a folder that does not exist is tried under a throw-away name: FastAPI's
 *   404 "Not Found" means the route is off (VLLM_ALLOW_RUNTIME_LORA_UPDATING), "LoRA is not
 *   enabled" means --enable-lora is missing, any other refusal (no adapter there) means LoRA is on;
 *   vLLM's --max-lora-rank (default 16) is not reported: a rank past it is refused at the first load,
 *   naming the flag;
 * - one tiny chat request returns prompt token ids, completion token ids and log-probs.
 * Returns what was checked, in words.
 */
export async function preflightTraining(target: PreflightTarget, needs: TrainingNeeds): Promise<string> {
  const { server, model } = target;
  if (server !== "vllm" && server !== "sglang") {
    throw new ServerPreflightError(target.baseUrl, [
      `${server ?? "this server (not recognised)"} cannot load LoRA adapters at run time: train against vLLM or SGLang (set backend.server if it is one), or set "training": null to only collect experience`,
    ]);
  }
  const problems: string[] = [];
  const served = await getJson(`${target.baseUrl}/models`, target);
  const ids = Array.isArray((served as { data?: unknown })?.data) ? (served as { data: Array<{ id?: unknown }> }).data.map((card) => String(card.id)) : [];
  if (!ids.includes(model)) problems.push(`backend.model "${model}" is not served (GET /models lists ${ids.length > 0 ? ids.map((id) => `"${id}"`).join(", ") : "nothing"}): set backend.model to the served name (the server's --served-model-name)`);
  for (const replica of target.replicas.length > 0 ? target.replicas : [target.baseUrl]) {
    problems.push(...(server === "sglang" ? await sglangLora(replica.replace(/\/+$/, ""), target, needs) : await vllmLora(replica.replace(/\/+$/, ""), target, needs)));
  }
  if (problems.length === 0) {
    let reply: ChatResult;
    try {
      reply = await target.chat();
    } catch (error) {
      throw new ServerPreflightError(target.baseUrl, [`a one-token chat request failed: ${(error as Error).message}`]);
    }
    const missing = [!reply.promptTokenIds?.length && "prompt token ids", !reply.tokenIds?.length && "completion token ids", !reply.tokenLogprobs?.length && "log-probs"].filter(Boolean);
    if (missing.length > 0) {
      problems.push(
        `a one-token chat request came back without ${missing.join(", ")}, so no round would have anything to train on: ${server === "vllm" ? "use a vLLM release whose chat API has return_token_ids and keep backend.logprobs on" : "use an SGLang with return_prompt_token_ids on its chat API and keep backend.logprobs on"}`,
      );
    }
  }
  if (problems.length > 0) throw new ServerPreflightError(target.baseUrl, [...problems, `a server started as \`${flags[server](needs.rank)}\` serves the defaults`]);
  return `${server} at ${target.baseUrl}: serves ${model}, loads LoRA adapters at run time${server === "sglang" ? ` of rank ${needs.rank}` : " (its --max-lora-rank is not reported: it must be at least " + needs.rank + ")"} on ${Math.max(1, target.replicas.length)} replica(s), returns token ids and log-probs`;
}

async function sglangLora(base: string, target: PreflightTarget, needs: TrainingNeeds): Promise<string[]> {
  const info = (await getJson(`${base.replace(/\/v1$/, "")}/get_server_info`, target)) as Record<string, unknown> | null;
  if (!info) return [`${base}: GET /get_server_info did not answer, so LoRA support cannot be checked`];
  if (info.enable_lora !== true) return [`${base}: LoRA is off: start SGLang with --enable-lora --max-lora-rank ${needs.rank} --lora-target-modules all`];
  const problems: string[] = [];
  const rank = typeof info.max_lora_rank === "number" ? info.max_lora_rank : null;
  if (rank !== null && rank < needs.rank) problems.push(`${base}: --max-lora-rank is ${rank}, below the adapters' rank ${needs.rank} (training.hyper.rank): start SGLang with --max-lora-rank ${needs.rank}`);
  const modules = Array.isArray(info.lora_target_modules) ? info.lora_target_modules.map(String) : null;
  const uncovered = modules && !modules.includes("all") ? needs.targets.filter((module) => !modules.includes(module)) : [];
  if (uncovered.length > 0) problems.push(`${base}: --lora-target-modules lacks ${uncovered.join(", ")}: start SGLang with --lora-target-modules all (or ${needs.targets.join(" ")})`);
  return problems;
}

async function vllmLora(base: string, target: PreflightTarget, needs: TrainingNeeds): Promise<string[]> {
  const probe = `spade-preflight-${process.pid}-${Date.now()}`;
  let response: Response;
  try {
    response = await fetch(`${base}/load_lora_adapter`, {
      method: "POST",
      headers: { "content-type": "application/json", ...target.headers },
      body: JSON.stringify({ lora_name: probe, lora_path: `/nonexistent/${probe}` }),
      signal: target.signal,
    });
  } catch (error) {
    return [`${base}: POST /load_lora_adapter failed: ${(error as Error).message}`];
  }
  const text = await response.text().catch(() => "");
  if (response.status === 404 && /"detail"\s*:\s*"Not Found"/.test(text)) {
    return [`${base}: run-time LoRA loading is off: start vLLM with VLLM_ALLOW_RUNTIME_LORA_UPDATING=True and --enable-lora --max-lora-rank ${needs.rank}`];
  }
  if (/LoRA is not enabled/i.test(text)) return [`${base}: LoRA is off: start vLLM with --enable-lora --max-lora-rank ${needs.rank} (vLLM's default rank limit is 16)`];
  if (response.ok) {
    // A server that took a folder that does not exist: take the name back.
    await fetch(`${base}/unload_lora_adapter`, { method: "POST", headers: { "content-type": "application/json", ...target.headers }, body: JSON.stringify({ lora_name: probe }), signal: target.signal }).catch(() => undefined);
  } else if (response.status !== 400 && response.status !== 404) {
    return [`${base}: POST /load_lora_adapter answered HTTP ${response.status} (${excerpt(text, 160)})`];
  }
  return [];
}

async function getJson(url: string, target: PreflightTarget): Promise<unknown> {
  try {
    const response = await fetch(url, { headers: target.headers, signal: target.signal });
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}
