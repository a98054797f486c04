import type { RunConfig } from "../../shared/runConfig.js";
import { InputError } from "../../shared/validation/InputError.js";
import { corpusCacheDir } from "../corpus/corpusCacheDir.js";
import { CorpusError } from "../corpus/CorpusError.js";
import { openCorpus } from "../corpus/openCorpus.js";
import { ModelDownloadError } from "../llm/llama/ModelDownloadError.js";
import { isModelUri } from "../llm/llama/isModelUri.js";

export interface CheckRunConfigSourcesOptions {
  /** How long the download host of a model URI not downloaded yet may take to accept a connection. Defaults to 5000 ms. */
  connectTimeoutMs?: number;
}

/**
 * Refuses, before a run is created for it, a config whose sources cannot be used (as
 * `checkRunConfigFiles` refuses missing files): a corpus that cannot be opened or holds no
 * documents, and a model URI not downloaded yet whose download host cannot be reached. The
 * corpus's index is built here into the workspace's cache, where the run finds it.
 */
export async function checkRunConfigSources(config: RunConfig, where: string, options: CheckRunConfigSourcesOptions = {}): Promise<void> {
  if (config.corpus) {
    try {
      await openCorpus(config.corpus.path, { cacheDir: corpusCacheDir(config.db) });
    } catch (error) {
      if (error instanceof CorpusError) throw new InputError(`${where}: corpus.path: ${error.message}`);
      throw error;
    }
  }
  if (config.backend.kind === "llama" && isModelUri(config.backend.modelPath)) {
    // node-llama-cpp loads only for a model URI.
    const { checkModelSource } = await import("../llm/llama/resolveModelSource.js");
    try {
      await checkModelSource(config.backend.modelPath, { ...(config.backend.modelsDir === undefined ? {} : { modelsDir: config.backend.modelsDir }), ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }) });
    } catch (error) {
      if (error instanceof ModelDownloadError) throw new InputError(`${where}: backend.modelPath: ${error.message}`);
      throw error;
    }
  }
}
