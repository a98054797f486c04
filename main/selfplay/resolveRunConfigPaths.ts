import { isAbsolute, resolve } from "node:path";
import type { RunConfig } from "../../shared/runConfig.js";

/**
 * Makes the config's paths (db, corpus, local model, an environment library, the hf trainer's conversion script and a base
 * model written as ./folder) absolute, relative to the config file's folder.
 */
export function resolveRunConfigPaths(config: RunConfig, baseDir: string): RunConfig {
  const abs = (path: string) => (isAbsolute(path) || /^[a-z]+:/i.test(path) ? path : resolve(baseDir, path));
  const backend = config.backend.kind === "llama"
    ? { ...config.backend, modelPath: abs(config.backend.modelPath), lora: config.backend.lora?.map((adapter) => ({ ...adapter, path: abs(adapter.path) })), modelsDir: config.backend.modelsDir === undefined ? undefined : abs(config.backend.modelsDir) }
    : config.backend;
  const trainer = config.training?.trainer;
  const training =
    config.training && trainer?.kind === "hf"
      ? {
          ...config.training,
          trainer: {
            ...trainer,
            convertScript: trainer.convertScript === null ? null : abs(trainer.convertScript),
            // A hub id ("Qwen/Qwen3-0.6B") stays as it is; "./models/qwen" is a folder beside the config.
            baseModel: trainer.baseModel?.startsWith(".") ? abs(trainer.baseModel) : trainer.baseModel,
          },
        }
      : config.training;
  return {
    ...config,
    db: abs(config.db),
    corpus: config.corpus ? { ...config.corpus, path: abs(config.corpus.path) } : null,
    backend,
    ...(config.designer.library?.path ? { designer: { ...config.designer, library: { ...config.designer.library, path: abs(config.designer.library.path) } } } : {}),
    ...(training ? { training } : {}),
  };
}
