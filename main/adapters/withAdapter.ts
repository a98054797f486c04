import type { BackendConfig, LlamaBackendConfig } from "../../shared/backendConfig.js";
import { InputError } from "../../shared/validation/InputError.js";

/**
 * The backend config with `path` as its only LoRA adapter (null: the base model, no adapter), so
 * new contexts are created with it. Only the local llama backend applies GGUF adapters; an
 * OpenAI-compatible server selects its adapters by name (`backend.adapter`).
 */
export function withAdapter(config: BackendConfig, path: string | null, scale = 1): LlamaBackendConfig {
  if (config.kind !== "llama") {
    throw new InputError(`backend.kind is "${config.kind}": a GGUF adapter needs the local llama backend; serve the adapter (e.g. vLLM --lora-modules) and set backend.adapter instead`);
  }
  const { lora: _previous, ...rest } = config;
  return path === null ? rest : { ...rest, lora: [{ path, scale }] };
}
