import { isAbsolute, resolve } from "node:path";
import type { RunConfig } from "../../shared/runConfig.js";

/** Makes the config's paths (db, corpus, local model) absolute, relative to the config file's folder. */
export function resolveRunConfigPaths(config: RunConfig, baseDir: string): RunConfig {
  const abs = (path: string) => (isAbsolute(path) || /^[a-z]+:/i.test(path) ? path : resolve(baseDir, path));
  const backend = config.backend.kind === "llama"
    ? { ...config.backend, modelPath: abs(config.backend.modelPath), lora: config.backend.lora?.map((adapter) => ({ ...adapter, path: abs(adapter.path) })), modelsDir: config.backend.modelsDir === undefined ? undefined : abs(config.backend.modelsDir) }
    : config.backend;
  return {
    ...config,
    db: abs(config.db),
    corpus: config.corpus ? { ...config.corpus, path: abs(config.corpus.path) } : null,
    backend,
  };
}
