import type { RunConfig } from "../../shared/runConfig.js";
import { parseRunConfig } from "../../shared/runConfig.js";
import { openCorpus } from "../corpus/openCorpus.js";
import { createBackend } from "../llm/createBackend.js";
import type { LlmBackend } from "../llm/LlmBackend.js";
import { SandboxPool, type SandboxPoolOptions } from "../sandbox/SandboxPool.js";
import type { WritableDb } from "../store/DatabaseHandle.js";
import { acquireRunLockPatiently, createRun, getRun, heartbeatRunLock, releaseRunLock, updateRunStatus, type RunStatus } from "../store/queries/runs.js";
import { createTrainingRound, type TrainingRoundParts } from "../training/createTrainingRound.js";
import { startRunLibrary } from "../library/startRunLibrary.js";
import type { LibraryHost } from "../library/LibraryHost.js";
import type { LoopEvent } from "./LoopEvent.js";
import type { TrainingStep } from "./TrainingStep.js";
import { SelfPlayLoop, type SelfPlayDeps } from "./SelfPlayLoop.js";

/**
 * The sandbox pool for a run: sized for one play per request the backend serves at once (plus one
 * for validation); `sandbox.processes` caps the processes alive at once, else the pool caps itself
 * by free memory. Processes start as plays need them, a few ahead.
 */
export function sandboxPoolSizing(config: RunConfig, backend: Pick<LlmBackend, "parallelism">): Pick<SandboxPoolOptions, "concurrency" | "capacity"> {
  return { concurrency: backend.parallelism + 1, ...(config.sandbox.processes === null ? {} : { capacity: config.sandbox.processes }) };
}

export type RunControllerEvent =
  | LoopEvent
  | { type: "runStatus"; runId: number; status: RunStatus; error: string | null }
  /** Something the researcher should know that does not stop the run (e.g. corpus lines left out). */
  | { type: "notice"; runId: number; message: string };

export interface RunControllerOptions {
  db: WritableDb;
  /** Makes the model backend for a run. Defaults to `createBackend(config.backend)`. */
  createBackend?: (config: RunConfig) => Promise<LlmBackend>;
  /** Makes the sandbox pool for a run. Defaults to a `SandboxPool` with the run's deadlines. */
  createPool?: (config: RunConfig) => Promise<SandboxPool>;
  /** Opens the grounding corpus. Defaults to `openCorpus(path)`. */
  openCorpus?: (path: string) => Promise<SelfPlayDeps["corpus"]>;
  /** Makes the run's training step (config.training). Defaults to `createTrainingRound`. */
  createTraining?: (config: RunConfig, parts: TrainingRoundParts) => (TrainingStep & { dispose(): Promise<void> }) | null;
  /** How often the run lock's heartbeat is refreshed. Defaults to 5000 ms. */
  heartbeatMs?: number;
  /** Starts the environment library of a `designer.kind: "library"` run. Defaults to `startRunLibrary`. */
  startLibrary?: (config: RunConfig) => Promise<LibraryHost>;
}

interface ActiveRun {
  abort: AbortController;
  /** What an abort means: pause (resumable) or stop (final). */
  intent: "pause" | "stop" | null;
  done: Promise<RunStatus>;
}

/**
 * Starts, pauses, resumes and stops self-play runs in this process, one loop per run. The CLI and
 * the workbench API both drive runs through it. A run holds its database lock while it runs, so a
 * second process cannot write the same run by accident.
 */
export class RunController {
  private readonly active = new Map<number, ActiveRun>();
  private readonly listeners = new Set<(event: RunControllerEvent) => void>();

  constructor(private readonly options: RunControllerOptions) {}

  on(listener: (event: RunControllerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Creates a run from a parsed config (paths already absolute) and starts it. */
  async start(config: RunConfig): Promise<{ runId: number }> {
    const run = createRun(this.options.db, { name: config.name ?? "", config, seed: config.seed, status: "running" });
    await this.launch(run.id, config);
    return { runId: run.id };
  }

  /** Continues a paused, stopped, failed or killed run from its last completed unit of work. */
  async resume(runId: number): Promise<{ runId: number }> {
    const run = getRun(this.options.db, runId);
    if (!run) throw new Error(`run ${runId} does not exist in this workspace`);
    if (this.active.has(runId)) throw new Error(`run ${runId} is already running in this process`);
    if (run.status === "completed") throw new Error(`run ${runId} has already completed`);
    await this.launch(runId, parseRunConfig(run.config, `run ${runId} config`));
    return { runId };
  }

  /** Asks the run to pause at the next safe point; resolves once it has. */
  async pause(runId: number): Promise<{ runId: number }> {
    return this.interrupt(runId, "pause");
  }

  /** Stops the run for good (it can still be resumed explicitly). */
  async stop(runId: number): Promise<{ runId: number }> {
    const active = this.active.get(runId);
    if (!active) {
      updateRunStatus(this.options.db, runId, "stopped");
      this.emit({ type: "runStatus", runId, status: "stopped", error: null });
      return { runId };
    }
    return this.interrupt(runId, "stop");
  }

  /** Resolves with the run's final status in this process. */
  async wait(runId: number): Promise<RunStatus> {
    const active = this.active.get(runId);
    if (!active) return getRun(this.options.db, runId)?.status ?? "failed";
    return active.done;
  }

  isActive(runId: number): boolean {
    return this.active.has(runId);
  }

  private async interrupt(runId: number, intent: "pause" | "stop"): Promise<{ runId: number }> {
    const active = this.active.get(runId);
    if (!active) throw new Error(`run ${runId} is not running in this process`);
    active.intent = intent;
    active.abort.abort(new Error(`run ${runId}: ${intent} requested`));
    await active.done;
    return { runId };
  }

  private async launch(runId: number, config: RunConfig): Promise<void> {
    const { db } = this.options;
    // A holder killed a moment ago (kill -9, then --resume at once) may still be a zombie or exiting.
    await acquireRunLockPatiently(db, runId, process.pid);
    if (this.active.has(runId)) throw new Error(`run ${runId} is already running in this process`);
    updateRunStatus(db, runId, "running");
    this.emit({ type: "runStatus", runId, status: "running", error: null });
    const abort = new AbortController();
    const entry: ActiveRun = { abort, intent: null, done: Promise.resolve("running") };
    entry.done = this.execute(runId, config, entry);
    this.active.set(runId, entry);
  }

  private async execute(runId: number, config: RunConfig, entry: ActiveRun): Promise<RunStatus> {
    const { db } = this.options;
    const heartbeat = setInterval(() => heartbeatRunLock(db, runId, process.pid), this.options.heartbeatMs ?? 5000);
    heartbeat.unref();
    let backend: LlmBackend | null = null;
    let pool: SandboxPool | null = null;
    let library: LibraryHost | null = null;
    let training: (TrainingStep & { dispose(): Promise<void> }) | null = null;
    let status: RunStatus;
    let error: string | null = null;
    try {
      // The library first: a missing library or dependency fails the run before the model loads.
      if (config.designer.kind === "library") library = await (this.options.startLibrary ?? startRunLibrary)(config);
      const corpus = config.corpus ? await (this.options.openCorpus ?? openCorpus)(config.corpus.path) : null;
      if (corpus && corpus.skipped.count > 0) {
        const { count, examples } = corpus.skipped;
        this.emit({ type: "notice", runId, message: `corpus ${corpus.path}: ${count} line${count === 1 ? " is" : "s are"} not a document and left out (${examples.join("; ")}${count > examples.length ? "; ..." : ""})` });
      }
      const model = (backend = await (this.options.createBackend ?? ((c) => createBackend(c.backend)))(config));
      const sandboxes = (pool = await (this.options.createPool ?? ((c) => SandboxPool.create({ stepTimeoutMs: c.sandbox.stepTimeoutMs, ...sandboxPoolSizing(c, model), ...(c.sandbox.allowUnconfined ? { allowUnconfined: true } : {}) })))(config));
      const onEvent = (event: LoopEvent) => this.emit(event);
      training = (this.options.createTraining ?? createTrainingRound)(config, { db, runId, backend: model, onEvent });
      const loop = new SelfPlayLoop(runId, config, { db, backend: model, pool: sandboxes, corpus, signal: entry.abort.signal, onEvent, training: training ?? undefined, ...(library ? { library } : {}) });
      const outcome = await loop.run();
      status = outcome === "completed" ? "completed" : entry.intent === "stop" ? "stopped" : "paused";
    } catch (caught) {
      status = entry.intent === "stop" ? "stopped" : entry.intent === "pause" ? "paused" : "failed";
      if (status === "failed") error = caught instanceof Error ? caught.message : String(caught);
    } finally {
      clearInterval(heartbeat);
      await training?.dispose().catch(() => undefined);
      await pool?.dispose().catch(() => undefined);
      await library?.dispose().catch(() => undefined);
      await backend?.dispose().catch(() => undefined);
    }
    updateRunStatus(db, runId, status, error);
    releaseRunLock(db, runId, process.pid);
    this.active.delete(runId);
    this.emit({ type: "runStatus", runId, status, error });
    return status;
  }

  private emit(event: RunControllerEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
