import { existsSync } from "node:fs";
import type { RunConfig } from "../../shared/runConfig.js";
import { InputError } from "../../shared/validation/InputError.js";
import { isModelUri } from "../llm/llama/isModelUri.js";

/**
 * Refuses a config whose local files are missing before a run is created for it, naming the key
 * and the path (paths already resolved against the config file).
 */
export function checkRunConfigFiles(config: RunConfig, where: string): void {
  const missing = (key: string, path: string) => new InputError(`${where}: ${key}: ${path} does not exist`);
  if (config.backend.kind === "llama") {
    if (!isModelUri(config.backend.modelPath) && !existsSync(config.backend.modelPath)) throw missing("backend.modelPath", config.backend.modelPath);
    config.backend.lora?.forEach((adapter, i) => {
      if (!existsSync(adapter.path)) throw missing(`backend.lora[${i}].path`, adapter.path);
    });
  }
  if (config.corpus && !existsSync(config.corpus.path)) throw missing("corpus.path", config.corpus.path);
}
