// The engine parts behind validation, manual play and run control: the sandbox pool with the
// validator, and the self-play run controller. The workbench takes them as interfaces so tests
// can leave them out (null) or script them.
import type { ModelProgressEvent } from "../../shared/api/events.js";
import type { ValidationReport } from "../../shared/environment.js";
import type { RunConfig } from "../../shared/runConfig.js";
import { createBackend } from "../llm/createBackend.js";
import type { LlmBackend } from "../llm/LlmBackend.js";
import type { EnvSession } from "../sandbox/EnvSession.js";
import { SandboxPool, type SandboxPoolOptions } from "../sandbox/SandboxPool.js";
import { RunController } from "../selfplay/RunController.js";
import type { WritableDb } from "../store/DatabaseHandle.js";
import { validateEnvironment } from "../validator/validateEnvironment.js";

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

/** The variable that sets how long the workbench keeps idle sandbox processes, in seconds. */
export const SANDBOX_IDLE_ENV = "SPADE_SANDBOX_IDLE_SECONDS";
/** How long the workbench (`spade serve`, the app) keeps sandbox processes with no session open, unless SPADE_SANDBOX_IDLE_SECONDS says otherwise. */
export const DEFAULT_SANDBOX_IDLE_SECONDS = 60;

/** The workbench's idle time for sandbox processes in ms, from SPADE_SANDBOX_IDLE_SECONDS (a number of seconds > 0), else the default. */
export function workbenchSandboxIdleMs(env: NodeJS.ProcessEnv = process.env): number {
  const text = env[SANDBOX_IDLE_ENV];
  if (text === undefined || text.trim() === "") return DEFAULT_SANDBOX_IDLE_SECONDS * 1000;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new RangeError(`${SANDBOX_IDLE_ENV} must be a number of seconds greater than 0, got "${text}"`);
  return Math.round(seconds * 1000);
}

/**
 * The sandbox pool and the validator. Two processes: one stays free for validation while a
 * manual play session holds the other. Processes with no session open for the workbench's idle
 * time (`workbenchSandboxIdleMs`) are ended, and started again at the next use.
 */
export async function createEnvironmentRuntime(options: SandboxPoolOptions = {}): Promise<EnvironmentRuntime> {
  const pool = await SandboxPool.create({ size: 2, idleReleaseMs: workbenchSandboxIdleMs(), ...options });
  return {
    validate: (code) => validateEnvironment(pool, code),
    open: (code) => pool.open(code),
    dispose: () => pool.dispose(),
  };
}

/** Loads a run's model, reporting the download (model URIs) and the load as `modelProgress` events. */
export async function createBackendWithProgress(config: RunConfig, emit: (event: ModelProgressEvent) => void): Promise<LlmBackend> {
  const model = config.backend.kind === "llama" ? config.backend.modelPath : `${config.backend.model} at ${config.backend.baseUrl}`;
  const event = (phase: ModelProgressEvent["phase"], rest: Partial<ModelProgressEvent>): ModelProgressEvent => ({ type: "modelProgress", model, phase, fraction: null, bytes: null, totalBytes: null, state: "active", ...rest });
  emit(event("load", {}));
  try {
    const backend = await createBackend(config.backend, {
      where: "run config",
      onDownloadProgress: ({ downloadedBytes, totalBytes }) => emit(event("download", { fraction: totalBytes > 0 ? downloadedBytes / totalBytes : null, bytes: downloadedBytes, totalBytes: totalBytes > 0 ? totalBytes : null })),
    });
    emit(event("load", { fraction: 1, state: "done" }));
    return backend;
  } catch (error) {
    emit(event("load", { state: "failed", error: (error as Error).message }));
    throw error;
  }
}

/** The run controller, with model progress forwarded to the workbench. */
export function createRunControl(db: WritableDb, emit: (event: ModelProgressEvent) => void): RunControl {
  return new RunController({ db, createBackend: (config) => createBackendWithProgress(config, emit) });
}
