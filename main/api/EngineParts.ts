// Engine parts the workbench uses when this build has them: the sandbox + validator (runtime
// issue) and the run controller (self-play loop). They are loaded at run time so the API works,
// minus those methods, while they are missing; a missing part makes its methods fail with
// UnavailableError instead of breaking the whole workbench.
import type { ValidationReport } from "../../shared/environment.js";
import type { EnvSession } from "../sandbox/EnvSession.js";

/** Validates environment code and opens sandboxed sessions of it. */
export interface EnvironmentRuntime {
  validate(code: string): Promise<ValidationReport>;
  open(code: string): Promise<EnvSession>;
  dispose(): Promise<void>;
}

/** The self-play loop's run control (main/selfplay/RunController.ts). */
export interface RunControl {
  start(config: unknown): Promise<{ runId: number }>;
  pause(runId: number): unknown;
  resume(runId: number): unknown;
  stop(runId: number): unknown;
  on(event: string, listener: (payload: unknown) => void): unknown;
  dispose?(): unknown;
}

interface SandboxModule {
  SandboxPool: { create(options?: unknown): Promise<{ open(code: string, options?: unknown): Promise<EnvSession>; dispose(): Promise<void> }> };
}
interface ValidatorModule {
  validateEnvironment(pool: unknown, code: string, options?: unknown): Promise<ValidationReport>;
}
interface RunControllerModule {
  RunController: new (options: { db: unknown; dbPath: string }) => RunControl;
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
export async function loadRunControl(db: unknown, dbPath: string): Promise<RunControl | null> {
  // TODO(selfplay): switch to a static import once main/selfplay/RunController.ts has landed.
  const module = await importOptional<RunControllerModule>("../selfplay/RunController.js");
  return module ? new module.RunController({ db, dbPath }) : null;
}
