import { dirname, join } from "node:path";
import type { RunConfig } from "../../shared/runConfig.js";
import { parseRunConfig } from "../../shared/runConfig.js";
import { corpusCacheDir } from "../corpus/corpusCacheDir.js";
import { openCorpus, type OpenCorpusOptions } from "../corpus/openCorpus.js";
import { describeSkippedLines } from "../corpus/SkippedLines.js";
import { putCorpusSkipped } from "../store/queries/documents.js";
import { createBackend } from "../llm/createBackend.js";
import type { LlmBackend } from "../llm/LlmBackend.js";
import { sandboxWorkingSet } from "../sandbox/sandboxWorkingSet.js";
import { SandboxPool, type SandboxPoolOptions } from "../sandbox/SandboxPool.js";
import type { WritableDb } from "../store/DatabaseHandle.js";
import type { RunDiagnosis, RunProgressSnapshot } from "../../shared/api/runTypes.js";
import { LiveTensorboard } from "../exports/LiveTensorboard.js";
import { countEnvironments } from "../store/queries/environments.js";
import { diagnoseRun } from "./diagnoseRun.js";
import {
  acquireRunLockPatiently,
  createRun,
  getRun,
  heartbeatRunLock,
  readRunControlRequest,
  requestRunControl,
  setRunProgress,
  settleRun,
  updateRunStatus,
  type RunState,
  type RunStatus,
} from "../store/queries/runs.js";
import { createTrainingRound, type TrainingRoundParts } from "../training/createTrainingRound.js";
import { startRunLibrary } from "../library/startRunLibrary.js";
import type { LibraryHost } from "../library/LibraryHost.js";
import type { LoopEvent } from "./LoopEvent.js";
import type { TrainingStep } from "./TrainingStep.js";
import { RunProgressTracker } from "./RunProgressTracker.js";
import { playsInFlight } from "./playsInFlight.js";
import { SelfPlayLoop, type SelfPlayDeps } from "./SelfPlayLoop.js";

/**
 * The sandbox pool for a run: sized for the plays in flight (`playsInFlight`: the requests the backend
 * serves at once and the plays getting ready behind them; plus one for validation); `sandbox.processes` caps the processes alive at once, else the pool caps itself
 * by free memory. The working set (`sandboxWorkingSet`) starts with the pool; later processes start as plays need them.
 */
export function sandboxPoolSizing(config: RunConfig, backend: Pick<LlmBackend, "parallelism">): Pick<SandboxPoolOptions, "concurrency" | "initialProcesses" | "capacity" | "playsPerProcess" | "recycleProcesses"> {
  return { concurrency: playsInFlight(backend.parallelism) + 1, initialProcesses: sandboxWorkingSet(config, playsInFlight(backend.parallelism)), playsPerProcess: config.sandbox.playsPerProcess, recycleProcesses: config.sandbox.recycleProcesses, ...(config.sandbox.processes === null ? {} : { capacity: config.sandbox.processes }) };
}

/**
 * A warning when the context is larger than what the model was trained on (e.g. contextSize 8192
 * on a model trained on 2048 tokens): the run goes on, but the model was never taught positions that far.
 */
export function contextBeyondTraining(backend: Pick<LlmBackend, "name" | "contextSize" | "trainedContextSize">): string | null {
  const { contextSize, trainedContextSize } = backend;
  if (contextSize === undefined || trainedContextSize === undefined || trainedContextSize <= 0 || contextSize <= trainedContextSize) return null;
  return `the context holds ${contextSize} tokens, above the ${trainedContextSize} tokens ${backend.name} was trained on: replies past ${trainedContextSize} tokens may degrade; set backend.contextSize to ${trainedContextSize} or less`;
}

export type RunControllerEvent =
  | LoopEvent
  | { type: "runStatus"; runId: number; status: RunState; error: string | null }
  /** Why no attempt is valid, said once as soon as the first iteration ended without a valid one (the report's diagnosis). */
  | { type: "diagnosis"; runId: number; diagnosis: RunDiagnosis }
  /** What the run does now, after every loop event that changed it. */
  | { type: "progress"; runId: number; progress: RunProgressSnapshot }
  /** Something the researcher should know that does not stop the run (e.g. corpus lines left out). */
  | { type: "notice"; runId: number; message: string };

export interface RunControllerOptions {
  db: WritableDb;
  /** Makes the model backend for a run. Defaults to `createBackend(config.backend)`. */
  createBackend?: (config: RunConfig) => Promise<LlmBackend>;
  /** Makes the sandbox pool for a run. Defaults to a `SandboxPool` with the run's deadlines. */
  createPool?: (config: RunConfig) => Promise<SandboxPool>;
  /** Opens the grounding corpus. Defaults to `openCorpus(path, options)`, its indexes in the workspace's cache folder. */
  openCorpus?: (path: string, options: OpenCorpusOptions) => Promise<SelfPlayDeps["corpus"]>;
  /** Makes the run's training step (config.training). Defaults to `createTrainingRound`. */
  createTraining?: (config: RunConfig, parts: TrainingRoundParts) => (TrainingStep & { dispose(): Promise<void> }) | null;
  /** How often the run lock's heartbeat is refreshed. Defaults to 5000 ms. */
  heartbeatMs?: number;
  /**
   * The folder of a run's live TensorBoard event files, null for none. Defaults to
   * `tensorboard/run-<id>` beside the workspace database (`tensorboard --logdir <that>/tensorboard`).
   */
  tensorboardDir?: (config: RunConfig, runId: number) => string | null;
  /** How often the owner looks for a pause or stop asked by another process, and stores its progress. Defaults to 250 ms. */
  controlPollMs?: number;
  /** How long a pause or stop of a run owned by another process waits for the owner to act. Defaults to 15000 ms. */
  remoteWaitMs?: number;
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
 * second process cannot write the same run by accident; a pause or stop of a run another process
 * owns is asked through the store, and that owner acts on it at its next unit of work.
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
    const run = createRun(this.options.db, { name: config.name ?? "", config, seed: config.seed, status: "running", ownerPid: process.pid });
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
    if (this.active.has(runId)) return this.interrupt(runId, "stop");
    const run = getRun(this.options.db, runId);
    if (!run) throw new Error(`run ${runId} does not exist in this workspace`);
    if (run.status === "running") return this.askOwner(runId, "stop");
    settleRun(this.options.db, runId, run.ownerPid ?? process.pid, "stopped");
    this.emit({ type: "runStatus", runId, status: "stopped", error: null });
    return { runId };
  }

  /** Resolves with the run's final status in this process. */
  async wait(runId: number): Promise<RunState> {
    const active = this.active.get(runId);
    if (!active) return getRun(this.options.db, runId)?.status ?? "failed";
    return active.done;
  }

  isActive(runId: number): boolean {
    return this.active.has(runId);
  }

  private async interrupt(runId: number, intent: "pause" | "stop"): Promise<{ runId: number }> {
    const active = this.active.get(runId);
    if (!active) {
      const run = getRun(this.options.db, runId);
      if (!run) throw new Error(`run ${runId} does not exist in this workspace`);
      if (run.status === "running") return this.askOwner(runId, intent);
      if (run.status === "interrupted") {
        // Its owner is gone: nobody else will write its state, so this process does.
        settleRun(this.options.db, runId, run.ownerPid ?? process.pid, "paused");
        this.emit({ type: "runStatus", runId, status: "paused", error: null });
        return { runId };
      }
      throw new Error(`run ${runId} is not running (it is ${run.status})`);
    }
    active.intent = intent;
    active.abort.abort(new Error(`run ${runId}: ${intent} requested`));
    await active.done;
    return { runId };
  }

  /** A run another process owns: the request waits in the store for that owner, which acts on it at its next unit of work. */
  private async askOwner(runId: number, intent: "pause" | "stop"): Promise<{ runId: number }> {
    const { db } = this.options;
    if (!requestRunControl(db, runId, intent)) throw new Error(`run ${runId} is not running`);
    const deadline = Date.now() + (this.options.remoteWaitMs ?? 15_000);
    while (Date.now() < deadline && getRun(db, runId)?.status === "running") await new Promise((resolve) => setTimeout(resolve, 100));
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
    const tracker = new RunProgressTracker(config);
    let progressStored = -1;
    const control = setInterval(() => {
      const request = readRunControlRequest(db, runId, process.pid);
      if (request && entry.intent === null) {
        entry.intent = request;
        entry.abort.abort(new Error(`run ${runId}: ${request} requested by another process`));
      }
      if (tracker.changes !== progressStored) {
        progressStored = tracker.changes;
        setRunProgress(db, runId, process.pid, tracker.snapshot());
      }
    }, this.options.controlPollMs ?? 250);
    control.unref();
    let backend: LlmBackend | null = null;
    let pool: SandboxPool | null = null;
    let library: LibraryHost | null = null;
    let training: (TrainingStep & { dispose(): Promise<void> }) | null = null;
    let liveTensorboard: LiveTensorboard | null = null;
    let status: RunStatus;
    let error: string | null = null;
    try {
      // The library first: a missing library or dependency fails the run before the model loads.
      if (config.designer.kind === "library") library = await (this.options.startLibrary ?? startRunLibrary)(config);
      const corpus = config.corpus ? await (this.options.openCorpus ?? openCorpus)(config.corpus.path, { cacheDir: corpusCacheDir(config.db) }) : null;
      if (corpus && corpus.skipped.count > 0) {
        // Kept with the run (the report and the Corpus page show it), not only said once.
        const message = describeSkippedLines(corpus.path, corpus.skipped);
        putCorpusSkipped(db, runId, message);
        this.emit({ type: "notice", runId, message });
      }
      const model = (backend = await (this.options.createBackend ?? ((c) => createBackend(c.backend)))(config));
      const beyondTraining = contextBeyondTraining(model);
      if (beyondTraining) this.emit({ type: "notice", runId, message: beyondTraining });
      const sandboxes = (pool = await (this.options.createPool ?? ((c) => SandboxPool.create({ stepTimeoutMs: c.sandbox.stepTimeoutMs, ...sandboxPoolSizing(c, model), ...(c.sandbox.allowUnconfined ? { allowUnconfined: true } : {}) })))(config));
      const tensorboard = (liveTensorboard = this.openTensorboard(config, runId));
      let diagnosed = false;
      const onEvent = (event: LoopEvent) => {
        this.emit(event);
        if (tensorboard) this.writeTensorboard(tensorboard, event, runId);
        if (event.type === "iterationCompleted" && !diagnosed) {
          diagnosed = true;
          const diagnosis = this.diagnoseEarly(runId);
          if (diagnosis) this.emit({ type: "diagnosis", runId, diagnosis });
        }
        const before = tracker.changes;
        tracker.handle(event);
        if (tracker.changes !== before) this.emit({ type: "progress", runId, progress: tracker.snapshot() });
      };
      training = (this.options.createTraining ?? createTrainingRound)(config, { db, runId, backend: model, onEvent });
      // Before any rollout is spent: the trainer's Python, the base model's tensor types and the memory model; a round that cannot run fails the run now.
      const memoryNote = await training?.prepare?.(entry.abort.signal);
      if (memoryNote) this.emit({ type: "notice", runId, message: memoryNote });
      const loop = new SelfPlayLoop(runId, config, { db, backend: model, pool: sandboxes, corpus, signal: entry.abort.signal, onEvent, training: training ?? undefined, ...(library ? { library } : {}) });
      const outcome = await loop.run();
      status = outcome === "completed" ? "completed" : entry.intent === "stop" ? "stopped" : "paused";
    } catch (caught) {
      status = entry.intent === "stop" ? "stopped" : entry.intent === "pause" ? "paused" : "failed";
      if (status === "failed") error = caught instanceof Error ? caught.message : String(caught);
    } finally {
      clearInterval(heartbeat);
      clearInterval(control);
      await training?.dispose().catch(() => undefined);
      await pool?.dispose().catch(() => undefined);
      await library?.dispose().catch(() => undefined);
      await backend?.dispose().catch(() => undefined);
    }
    if (liveTensorboard && (status === "completed" || status === "failed")) this.endTensorboard(liveTensorboard, status, runId);
    settleRun(db, runId, process.pid, status, error);
    this.active.delete(runId);
    this.emit({ type: "runStatus", runId, status, error });
    return status;
  }

  private openTensorboard(config: RunConfig, runId: number): LiveTensorboard | null {
    const folder = (this.options.tensorboardDir ?? ((c, id) => join(dirname(c.db), "tensorboard", `run-${id}`)))(config, runId);
    if (folder === null) return null;
    try {
      const writer = new LiveTensorboard(folder, this.options.db, runId);
      writer.config(config);
      return writer;
    } catch (error) {
      this.emit({ type: "notice", runId, message: `no live TensorBoard files: ${(error as Error).message}` });
      return null;
    }
  }

  /** Curves are a view: a file that cannot be written is said once and never ends the run. */
  private writeTensorboard(writer: LiveTensorboard, event: LoopEvent, runId: number): void {
    try {
      if (event.type === "iterationCompleted") writer.iteration(event.iteration, event.metrics);
      else if (event.type === "trainingFinished") writer.trainingRound(event.round);
    } catch (error) {
      this.emit({ type: "notice", runId, message: `TensorBoard file ${writer.file}: ${(error as Error).message}` });
    }
  }

  private endTensorboard(writer: LiveTensorboard, status: "completed" | "failed", runId: number): void {
    try {
      writer.end(status);
    } catch (error) {
      this.emit({ type: "notice", runId, message: `TensorBoard file ${writer.file}: ${(error as Error).message}` });
    }
  }

  /** The report's diagnosis of a run that has no valid environment yet, or null. */
  private diagnoseEarly(runId: number): RunDiagnosis | null {
    const { db } = this.options;
    const run = getRun(db, runId);
    if (!run || countEnvironments(db, { runId, valid: true }) > 0) return null;
    return diagnoseRun(db, run);
  }

  private emit(event: RunControllerEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
