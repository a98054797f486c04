import { isAbsolute, resolve } from "node:path";
import type { RunConfig } from "../../shared/runConfig.js";

/** Makes the config's paths (db, corpus, local model) absolute, relative to the config file's folder. */
export function resolveRunConfigPaths(config: RunConfig, baseDir: string): RunConfig {
  const abs = (path: string) => (isAbsolute(path) || /^[a-z]+:/i.test(path) ? path : resolve(baseDir, path));
  const backend = { ...config.backend };
  if (typeof backend.modelPath === "string") backend.modelPath = abs(backend.modelPath);
  return {
    ...config,
    db: abs(config.db),
    corpus: config.corpus ? { ...config.corpus, path: abs(config.corpus.path) } : null,
    backend,
  };
}
