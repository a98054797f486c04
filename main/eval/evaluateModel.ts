import type { BackendConfig } from "../../shared/backendConfig.js";
import { createBackend } from "../llm/createBackend.js";
import { evaluateSuite, type EvaluateSuiteOptions, type SuiteEvalReport } from "./evaluateSuite.js";

/** Loads the model a backend config describes, evaluates it on a suite, and frees it again. */
export async function evaluateModel(backendConfig: BackendConfig, baseDir: string, suite: EvaluateSuiteOptions): Promise<SuiteEvalReport> {
  const backend = await createBackend(backendConfig, { where: "backend", baseDir });
  try {
    return await evaluateSuite(backend, suite);
  } finally {
    await backend.dispose();
  }
}
