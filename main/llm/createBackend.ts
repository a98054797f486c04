import { isAbsolute, resolve } from "node:path";
import { parseBackendConfig, type BackendConfig } from "../../shared/backendConfig.js";
import { InputError } from "../../shared/validation/InputError.js";
import type { LlmBackend } from "./LlmBackend.js";
import { isModelUri } from "./llama/isModelUri.js";
import type { DownloadProgress } from "./llama/resolveModelSource.js";
import { OpenAiBackend } from "./openai/OpenAiBackend.js";

export interface CreateBackendOptions {
  /** Names the config's source in error messages. Defaults to "backend config". */
  where?: string;
  /** Folder that relative model, adapter and models-dir paths are resolved against. Defaults to the working directory. */
  baseDir?: string;
  /** Called as a model URI downloads. Defaults to none. */
  onDownloadProgress?: (progress: DownloadProgress) => void;
  /** Environment for `apiKeyEnv`. Defaults to process.env. */
  env?: Record<string, string | undefined>;
}

/**
 * The backend a config asks for. The config is validated first (it usually comes from a JSON
 * file), so a wrong key or type fails with an InputError naming it before anything loads.
 */
export async function createBackend(config: BackendConfig | Readonly<Record<string, unknown>>, options: CreateBackendOptions = {}): Promise<LlmBackend> {
  const where = options.where ?? "backend config";
  const parsed = parseBackendConfig(config, where);
  const baseDir = options.baseDir ?? process.cwd();
  const local = (path: string) => (isAbsolute(path) ? path : resolve(baseDir, path));
  if (parsed.kind === "llama") {
    const { kind: _kind, modelPath, lora, modelsDir, ...settings } = parsed;
    // Loaded on demand: node-llama-cpp takes about a second to import, and most commands never need it.
    const { LlamaBackend } = await import("./llama/LlamaBackend.js");
    return LlamaBackend.load({
      ...settings,
      model: isModelUri(modelPath) ? modelPath : local(modelPath),
      lora: lora?.map((adapter) => ({ ...adapter, path: local(adapter.path) })),
      modelsDir: modelsDir === undefined ? undefined : local(modelsDir),
      onDownloadProgress: options.onDownloadProgress,
    });
  }
  const { kind: _kind, apiKeyEnv, ...settings } = parsed;
  let apiKey = settings.apiKey;
  if (apiKeyEnv !== undefined) {
    apiKey = (options.env ?? process.env)[apiKeyEnv];
    if (!apiKey) throw new InputError(`${where}: backend.apiKeyEnv: the environment variable ${apiKeyEnv} is not set`);
  }
  return new OpenAiBackend({ ...settings, apiKey });
}
