// Engine parts the workbench uses when this build has them: the sandbox + validator (runtime
// issue) and the run controller (self-play loop). They are loaded at run time so the API works,
// minus those methods, while they are missing; a missing part makes its methods fail with
// UnavailableError instead of breaking the whole workbench.
import type { ValidationReport } from "../../shared/environment.js";
import type { RunConfig } from "../../shared/runConfig.js";
import type { EnvSession } from "../sandbox/EnvSession.js";
import type { WritableDb } from "../store/DatabaseHandle.js";

/** Validates environment code and opens sandboxed sessions of it. */
export interface EnvironmentRuntime {
  validate(code: string): Promise<ValidationReport>;
  open(code: string): Promise<EnvSession>;
  dispose(): Promise<void>;
}

/** The self-play loop's run control (main/selfplay/RunController.ts). */
export interface RunControl {
  start(config: RunConfig): Promise<{ runId: number }>;
  pause(runId: number): Promise<unknown>;
  resume(runId: number): Promise<unknown>;
  stop(runId: number): Promise<unknown>;
  /** Every loop event and run status change; returns the function that stops listening. */
  on(listener: (event: { type: string }) => void): () => void;
}

interface SandboxModule {
  SandboxPool: { create(options?: unknown): Promise<{ open(code: string, options?: unknown): Promise<EnvSession>; dispose(): Promise<void> }> };
}
interface ValidatorModule {
  validateEnvironment(pool: unknown, code: string, options?: unknown): Promise<ValidationReport>;
}
interface RunControllerModule {
  RunController: new (options: { db: WritableDb }) => RunControl;
}

/** Imports an optional engine module; null when this build does not have it. */
async function importOptional<T>(relativePath: string): Promise<T | null> {
  const url = new URL(relativePath, import.meta.url).href;
  try {
    return (await import(url)) as T;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" && String((error as Error).message).includes(relativePath.replace(/^\.\.\//, ""))) return null;
    throw error;
  }
}

/** The sandbox pool + validator, created on first use; null when the modules are missing. */
export async function loadEnvironmentRuntime(): Promise<EnvironmentRuntime | null> {
  const sandbox = await importOptional<SandboxModule>("../sandbox/SandboxPool.js");
  const validator = await importOptional<ValidatorModule>("../validator/validateEnvironment.js");
  if (!sandbox || !validator) return null;
  const pool = await sandbox.SandboxPool.create();
  return {
    validate: (code) => validator.validateEnvironment(pool, code),
    open: (code) => pool.open(code),
    dispose: () => pool.dispose(),
  };
}

/** The run controller, when the self-play loop is built in. */
export async function loadRunControl(db: WritableDb): Promise<RunControl | null> {
  // TODO(selfplay): a static import once main/selfplay/RunController.ts and its imports (corpus,
  // llm/createBackend, sandbox) have all landed; until then a build without them still serves.
  const module = await importOptional<RunControllerModule>("../selfplay/RunController.js");
  return module ? new module.RunController({ db }) : null;
}
