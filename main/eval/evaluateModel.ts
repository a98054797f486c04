import type { BackendConfig } from "../../shared/backendConfig.js";
import { createBackend } from "../llm/createBackend.js";
import { evaluateSuite, type EvaluateSuiteOptions, type SuiteEvalReport } from "./evaluateSuite.js";

/**
 * Loads the model a backend config describes, evaluates it on a suite, and frees it again. An
 * ACEBench-Agent suite's user simulator is `userBackend` when given (loaded and freed the same
 * way), else the evaluated model.
 */
export async function evaluateModel(backendConfig: BackendConfig, baseDir: string, suite: EvaluateSuiteOptions, userBackend: BackendConfig | null = null): Promise<SuiteEvalReport> {
  const backend = await createBackend(backendConfig, { where: "backend", baseDir });
  try {
    if (userBackend === null) return await evaluateSuite(backend, suite);
    const user = await createBackend(userBackend, { where: "userBackend", baseDir });
    try {
      return await evaluateSuite(backend, { ...suite, userBackend: user, userSimulator: describeBackend(userBackend) });
    } finally {
      await user.dispose();
    }
  } finally {
    await backend.dispose();
  }
}

/** A backend in a few words for reports: its kind and model. */
export function describeBackend(config: BackendConfig): string {
  return config.kind === "openai" ? `openai ${config.model}` : `llama ${config.modelPath}`;
}
