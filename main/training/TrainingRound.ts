import { copyFileSync, cpSync, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { LoraSpec } from "../../shared/backendConfig.js";
import type { TrainingConfig } from "../../shared/trainingConfig.js";
import { adaptersDirFor } from "../adapters/adaptersDirFor.js";
import { installAdapterFile } from "../adapters/installAdapterFile.js";
import { nextAdapterName } from "../adapters/nextAdapterName.js";
import { sha256File } from "../adapters/sha256File.js";
import { workspaceTag } from "../adapters/workspaceTag.js";
import { checkModelFile } from "../llm/gguf/checkModelFile.js";
import { readGgufInfo } from "../llm/gguf/readGgufInfo.js";
import type { LlmBackend } from "../llm/LlmBackend.js";
import type { LoopEvent } from "../selfplay/LoopEvent.js";
import { designerBatchTrainedAt } from "../selfplay/rolloutSchedule.js";
import type { TrainingStep } from "../selfplay/TrainingStep.js";
import type { WritableDb } from "../store/DatabaseHandle.js";
import { getAdapter, getAdapterByName, insertAdapter, updateAdapter, type Adapter } from "../store/queries/adapters.js";
import { findAdapterIdByPath } from "../store/queries/trainingQueries.js";
import { finishTrainingRound, findTrainingRound, listTrainingRounds, mergeTrainingRoundMetrics, setTrainingRoundAdapter, startTrainingRound, type TrainingRound as StoredRound } from "../store/queries/trainingRounds.js";
import { transaction } from "../store/transaction.js";
import { deriveSeed } from "../util/seededRandom.js";
import { buildTrainingBatch } from "./buildTrainingBatch.js";
import { designerScaleFactor, type ScaledSchedule } from "./designerScaleFactor.js";
import { fillsShortBatch } from "./fillsShortBatch.js";
import { checkGgufTrainerTypes } from "./checkGgufTrainerTypes.js";
import { optimizerStatePath } from "./optimizerStatePath.js";
import type { RoundMemoryPrediction, RoundTrainer, RoundTrainResult } from "./RoundTrainer.js";
import { shouldReleaseModel } from "./shouldReleaseModel.js";
import { writeTrainingBatch } from "./writeTrainingBatch.js";

/** The promotion gate's verdict on a new adapter against the one in use. */
export interface GateDecision {
  promoted: boolean;
  reason: string;
  /** Scores and anything else worth keeping with the round. Defaults to none. */
  details?: Record<string, unknown>;
}

export interface TrainingRoundOptions {
  db: WritableDb;
  runId: number;
  /** The run seed: the trainer's seed per round derives from it. */
  seed: number;
  config: TrainingConfig;
  /** The model the loop samples with: released while training, then loaded with the new adapter. */
  backend: LlmBackend;
  /** The run's rollout schedule: which designer samples are scored after which rollout, and the step's batch size. */
  schedule: ScaledSchedule;
  /** The base model GGUF the adapters are trained for (they are checked against it). */
  baseModelPath: string;
  /** What the trainer loads as the base model, when not that GGUF (the hf trainer's checkpoint). Defaults to `baseModelPath`. */
  trainerBaseModel?: string;
  /** The adapters the run started with (backend.lora). Defaults to none. */
  initialLora?: LoraSpec[];
  /** Starts the trainer the first time a round needs it (one per run, kept across rounds). */
  createTrainer: () => Promise<RoundTrainer>;
  /** Checks a new adapter against the one in use (null: the base model); absent: every adapter is used. */
  gate?: (candidate: Adapter, parent: Adapter | null) => Promise<GateDecision>;
  /** Where each round's batch and trainer output go. Defaults to `training/run-<id>/` next to the database. */
  workDir?: string;
  /** Where adapter versions are kept. Defaults to `adapters/` next to the database. */
  adaptersDir?: string;
  /**
   * Where the model that samples runs: "local" (llama.cpp: each round's GGUF LoRA is checked against
   * the base GGUF and switched in) or "server" (an OpenAI-compatible vLLM or SGLang server: each
   * round's adapter folder, e.g. PEFT, is loaded into the server through its dynamic LoRA route).
   * Defaults to "local".
   */
  serving?: "local" | "server";
  /** Checks before rollout 0 that the trainer can run (throws an error naming the fix). Defaults to none. */
  checkTrainer?: () => Promise<void>;
  onEvent?: (event: LoopEvent) => void;
}

/**
 * Training inside the run (the loop's TrainingStep): after every `every`-th iteration, build the
 * round's batch from the iterations since the last round, release the model where llama.cpp holds a
 * GPU (or as training.unloadModel says), train through the trainer, install and register the LoRA
 * with the adapter in use as its parent, pass it through the gate (the model still released), and
 * load the model back once with the adapter chosen. Each phase's seconds go into the round's
 * metrics (batch, release, trainer, register, gate, reload). Every step is recorded before the next, so a
 * round killed at any point is redone or taken up again on resume, and an adapter is registered
 * once: its name is fixed by the run and round (`run-<id>-r<round>`; on a server also the workspace's
 * tag, `run-<id>-r<round>-<tag>`, since a server is shared by name).
 */
export class TrainingRound implements TrainingStep {
  private trainer: RoundTrainer | null = null;
  private adapterChecked = false;
  /** The inference model is released for the trainer (between `release` and the next `useAdapter`). */
  private released = false;
  private baseHash: { stamp: string; sha256: string } | null = null;

  constructor(private readonly options: TrainingRoundOptions) {}

  /** Seconds `prepare` took to start the trainer (its start-up, kept out of the rounds); null before. */
  startupSeconds: number | null = null;

  /**
   * Before the first iteration: checks the trainer can run (its Python, the base model's tensor
   * types), starts it (warmed up, so no round waits for its start-up) and asks its memory model for the largest round
   * this run can give (a micro-batch of `microBatchTokens`, or one sequence filling the backend's
   * context). Returns the prediction in words; throws the trainer's refusal, naming what to lower,
   * when it does not fit the free memory. A trainer without a memory model is not asked.
   */
  async prepare(): Promise<string | null> {
    await this.options.checkTrainer?.();
    // The gguf trainer reads the base model's tensors itself: a type it cannot dequantise is refused now, not at the first round.
    if (this.options.config.trainer.kind === "gguf") checkGgufTrainerTypes(await readGgufInfo(this.options.trainerBaseModel ?? this.options.baseModelPath));
    const started = Date.now();
    const trainer = (this.trainer ??= await this.options.createTrainer());
    this.startupSeconds = (Date.now() - started) / 1000;
    if (!trainer.checkMemory) return null;
    const { config, backend } = this.options;
    const longest = backend.contextSize ?? 4096;
    let prediction: RoundMemoryPrediction;
    try {
      prediction = await trainer.checkMemory({ baseModel: this.options.trainerBaseModel ?? this.options.baseModelPath, hyper: config.hyper, longest });
    } catch (error) {
      throw new Error(`training: ${(error as Error).message}`, { cause: error });
    }
    const gb = (bytes: number) => `${(bytes / 1e9).toFixed(2)} GB`;
    const { weights, lora, activations, outputLayer, outputKept } = prediction.parts;
    return `training: the largest round (${longest}-token context, micro-batch ${config.hyper.microBatchTokens} tokens) is predicted to peak at ${gb(prediction.peakBytes)} (weights ${gb(weights)}, LoRA + Adam ${gb(lora)}, then the larger of activations ${gb(activations)} and the output layer ${gb(outputLayer)} with the ${gb(outputKept)} of activations it keeps, which never coexist)${prediction.freeBytes === null ? "" : `; ${gb(prediction.freeBytes)} free`}`;
  }

  async afterIteration(iteration: number, signal?: AbortSignal): Promise<"done" | "interrupted"> {
    // A resumed run samples with the adapter its last round put in use, before anything else.
    if (!this.adapterChecked) {
      await this.useAdapter(this.currentAdapter());
      this.adapterChecked = true;
    }
    if ((iteration + 1) % this.options.config.every !== 0) return "done";
    const { db, runId } = this.options;
    const stored = findTrainingRound(db, runId, iteration);
    if (stored && stored.status !== "running") return "done";
    const round = stored ?? startTrainingRound(db, runId, iteration, this.currentAdapter()?.id ?? null);
    return this.runRound(round, signal);
  }

  /** Stops the trainer (end of the run). */
  async dispose(): Promise<void> {
    const trainer = this.trainer;
    this.trainer = null;
    await trainer?.dispose();
  }

  /** The adapter in use: the last round's that was put in use, else the one the run started with (if registered). */
  currentAdapter(): Adapter | null {
    const { db, runId } = this.options;
    const rounds = listTrainingRounds(db, runId).filter((round) => round.status === "completed" && round.adapterId !== null);
    const last = rounds.at(-1);
    if (last) return getAdapter(db, last.adapterId!);
    const initial = this.options.initialLora?.[0];
    const id = initial ? findAdapterIdByPath(db, initial.path) : null;
    return id === null ? null : getAdapter(db, id);
  }

  private async runRound(round: StoredRound, signal?: AbortSignal): Promise<"done" | "interrupted"> {
    const { db, runId, config } = this.options;
    const parent = round.parentAdapterId === null ? null : getAdapter(db, round.parentAdapterId);
    const roundDir = join(this.options.workDir ?? join(dirname(db.name), "training", `run-${runId}`), `round-${round.round}`);
    const emit = (event: LoopEvent) => this.options.onEvent?.(event);
    let adapter = round.adapterId === null ? null : getAdapter(db, round.adapterId);

    if (adapter === null) {
      const batchStarted = Date.now();
      const from = Math.max(0, round.afterIteration + 1 - config.every);
      const { schedule } = this.options;
      const rollouts = Array.from({ length: round.afterIteration + 1 - from }, (_, i) => from + i);
      // The designer samples the reference trains in these rollouts' steps (generated proposerDelay rollouts before), exactly once,
      // their advantages scaled as the step that trains them counts (the stored ones count the scoring rollout).
      const designer = rollouts.flatMap((rollout) => {
        const regeneration = designerBatchTrainedAt(rollout, schedule);
        return regeneration === null ? [] : [{ regeneration, factor: designerScaleFactor(db, runId, regeneration, rollout, schedule) }];
      });
      const batch = buildTrainingBatch(db, {
        runId,
        fromIteration: from,
        toIteration: round.afterIteration,
        designerRegenerations: designer.map((entry) => entry.regeneration),
        designerScale: new Map(designer.map((entry) => [entry.regeneration, entry.factor])),
        actorBatch: schedule.actorBatch * config.every,
        roles: config.roles,
        compactFilter: config.compactFilter,
        includeCanary: config.includeCanary,
        includeHinted: config.includeHinted,
        includeErrored: config.includeErrored,
        upsample: fillsShortBatch(schedule),
      });
      const batchPath = join(roundDir, "batch.jsonl");
      writeTrainingBatch(batchPath, batch);
      const counts = { sequences: batch.lines.length, roles: batch.header.roles, leftOut: batch.header["left out"], batch: batchPath, batchSeconds: (Date.now() - batchStarted) / 1000 };
      mergeTrainingRoundMetrics(db, runId, round.round, counts);
      emit({ type: "trainingStarted", runId, round: round.round, afterIteration: round.afterIteration, sequences: batch.lines.length });
      if (batch.lines.length === 0) return this.finish(round, "failed", "nothing to train on: no sampled tokens were recorded in these iterations (see the left-out counts)", null);

      let trained: RoundTrainResult;
      const started = Date.now();
      const cost: Record<string, number> = {};
      try {
        if (this.shouldUnload()) cost.releaseSeconds = await seconds(() => this.release());
        const trainer = (this.trainer ??= await this.options.createTrainer());
        // A local run loads a GGUF LoRA; a server loads the trainer's adapter folder (PEFT).
        const output = join(roundDir, "output", this.serving === "server" ? `round-${round.round}` : `round-${round.round}.gguf`);
        rmSync(dirname(output), { recursive: true, force: true });
        mkdirSync(dirname(output), { recursive: true });
        const trainStarted = Date.now();
        trained = await trainer.train(
          {
            round: round.round,
            batch: batchPath,
            baseModel: this.options.trainerBaseModel ?? this.options.baseModelPath,
            parentAdapter: parent?.path ?? null,
            output,
            hyper: { ...config.hyper, seed: deriveSeed(this.options.seed, "train", round.round) },
          },
          { signal, onProgress: (p) => emit({ type: "trainingProgress", runId, round: round.round, phase: "training", step: p.step, steps: p.steps, loss: p.loss }) },
        );
        cost.trainerSeconds = (Date.now() - trainStarted) / 1000;
      } catch (error) {
        // The model comes back with the adapter in use: the round failed or stopped.
        await this.useAdapter(parent);
        if (signal?.aborted) {
          // The round stays "running": it is trained again on resume. A killed trainer is not reused.
          await this.dispose().catch(() => undefined);
          return "interrupted";
        }
        return this.finish(round, "failed", `the trainer failed: ${(error as Error).message}`, null);
      }
      mergeTrainingRoundMetrics(db, runId, round.round, { ...trained.metrics, ...(trained.mismatch ? { mismatch: trained.mismatch } : {}), ...cost, wallSeconds: (Date.now() - started) / 1000 });
      emit({ type: "trainingProgress", runId, round: round.round, phase: "registering", step: 0, steps: 0, loss: trained.metrics.loss ?? null });
      const registerStarted = Date.now();
      adapter = await this.register(round, trained, parent, roundDir);
      mergeTrainingRoundMetrics(db, runId, round.round, { registerSeconds: (Date.now() - registerStarted) / 1000 });
    }

    let status: "completed" | "rejected" = "completed";
    let reason: string | null = null;
    if (this.options.gate && adapter.status !== "promoted" && adapter.status !== "rejected") {
      const gateStarted = Date.now();
      const decision = await this.options.gate(adapter, parent);
      updateAdapter(db, adapter.id, { status: decision.promoted ? "promoted" : "rejected" });
      mergeTrainingRoundMetrics(db, runId, round.round, { gate: { promoted: decision.promoted, reason: decision.reason, ...decision.details }, gateSeconds: (Date.now() - gateStarted) / 1000 });
      adapter = getAdapter(db, adapter.id)!;
    }
    if (adapter.status === "rejected") {
      status = "rejected";
      reason = (findTrainingRound(db, runId, round.afterIteration)?.metrics.gate as { reason?: string } | undefined)?.reason ?? "the promotion gate rejected it";
    }
    emit({ type: "trainingProgress", runId, round: round.round, phase: "loading", step: 0, steps: 0, loss: null });
    const reloadSeconds = await seconds(() => this.useAdapter(status === "completed" ? adapter : parent));
    mergeTrainingRoundMetrics(db, runId, round.round, { reloadSeconds });
    return this.finish(round, status, reason, adapter);
  }

  private get serving(): "local" | "server" {
    return this.options.serving ?? "local";
  }

  /** Installs the trainer's GGUF LoRA (or, for a server, its adapter folder) under its fixed name and registers it with its round, at most once. */
  private async register(round: StoredRound, trained: RoundTrainResult, parent: Adapter | null, roundDir: string): Promise<Adapter> {
    const { db, runId } = this.options;
    // A server's adapters are named for this workspace too: a server keeps them by name, and other workspaces may share it.
    const name = this.serving === "server" ? `run-${runId}-r${round.round}-${workspaceTag(db, runId)}` : `run-${runId}-r${round.round}`;
    const registered = getAdapterByName(db, name);
    if (registered) {
      setTrainingRoundAdapter(db, runId, round.round, registered.id);
      return registered;
    }
    if (this.serving === "server") return this.registerFolder(round, trained, parent, roundDir, name);
    const adaptersDir = this.options.adaptersDir ?? adaptersDirFor(db.name);
    let destPath = join(adaptersDir, `${name}.gguf`);
    let adapterSha256: string;
    const base = await checkModelFile(this.options.baseModelPath);
    if (existsSync(destPath) && (await sha256File(destPath)) === (await sha256File(trained.adapterPath))) {
      // Installed by this round before a kill, not yet registered: the same file, kept.
      installTrainerState(trained.adapterPath, destPath);
      adapterSha256 = await sha256File(destPath);
    } else {
      // Another workspace sharing the folder has a file of that name: take a new version name.
      if (existsSync(destPath)) destPath = join(adaptersDir, `${nextAdapterName(db, adaptersDir, name)}.gguf`);
      // The optimiser state (and the hf trainer's PEFT folder) go first: an installed adapter always has what the next round continues from beside it.
      installTrainerState(trained.adapterPath, destPath);
      adapterSha256 = await installAdapterFile(trained.adapterPath, destPath, base);
    }
    const baseModelSha256 = await this.baseModelSha256();
    const id = transaction(db, () => {
      const adapterId = insertAdapter(db, {
        name: basename(destPath, ".gguf"),
        path: destPath,
        runId,
        parentId: parent?.id ?? null,
        baseModelSha256,
        manifest: { batch: join(roundDir, "batch.jsonl"), round: round.round, afterIteration: round.afterIteration },
        trainerCommand: trainerLabel(this.options.config),
        metrics: { ...trained.metrics, adapterSha256 },
        status: "ready",
      });
      setTrainingRoundAdapter(db, runId, round.round, adapterId);
      return adapterId;
    });
    return getAdapter(db, id)!;
  }

  /** A server's adapter: the trainer's folder copied under the adapters folder, registered with its round. */
  private registerFolder(round: StoredRound, trained: RoundTrainResult, parent: Adapter | null, roundDir: string, name: string): Adapter {
    const { db, runId } = this.options;
    const destPath = join(this.options.adaptersDir ?? adaptersDirFor(db.name), name);
    // The optimiser state first, then the folder: the next round continues Adam's moments from beside its parent.
    installOptimizerState(trained.adapterPath, destPath);
    rmSync(destPath, { recursive: true, force: true });
    cpSync(trained.adapterPath, destPath, { recursive: true });
    const id = transaction(db, () => {
      const adapterId = insertAdapter(db, {
        name,
        path: destPath,
        runId,
        parentId: parent?.id ?? null,
        manifest: { batch: join(roundDir, "batch.jsonl"), round: round.round, afterIteration: round.afterIteration, format: "folder" },
        trainerCommand: trainerLabel(this.options.config),
        metrics: trained.metrics,
        status: "ready",
      });
      setTrainingRoundAdapter(db, runId, round.round, adapterId);
      return adapterId;
    });
    return getAdapter(db, id)!;
  }

  /** The base model's SHA-256, hashed once per file version (a 7B GGUF takes seconds to hash: not every round). */
  private async baseModelSha256(): Promise<string> {
    const { mtimeMs, size } = await stat(this.options.baseModelPath);
    const stamp = `${mtimeMs}:${size}`;
    if (this.baseHash?.stamp !== stamp) this.baseHash = { stamp, sha256: await sha256File(this.options.baseModelPath) };
    return this.baseHash.sha256;
  }

  private finish(round: StoredRound, status: "completed" | "failed" | "rejected", reason: string | null, adapter: Adapter | null): "done" {
    const { db, runId } = this.options;
    finishTrainingRound(db, runId, round.round, status, reason === null ? {} : { reason });
    const loss = findTrainingRound(db, runId, round.afterIteration)?.metrics.loss;
    this.options.onEvent?.({ type: "trainingFinished", runId, round: round.round, status, adapter: adapter?.name ?? null, loss: typeof loss === "number" ? loss : null, reason });
    return "done";
  }

  /** Frees the inference model for the trainer; `useAdapter` loads it back (once, with the adapter chosen). */
  private async release(): Promise<void> {
    if (this.released) return;
    await this.options.backend.unload!();
    this.released = true;
  }

  /** Makes the backend sample with `adapter` (null: the adapters the run started with), loading it back when released. */
  private async useAdapter(adapter: Adapter | null): Promise<void> {
    const { backend } = this.options;
    if (this.serving === "server") {
      // The server keeps what it serves until told otherwise: load a new adapter, else keep the model as it is.
      if (adapter === null || backend.adapter === adapter.name) return;
      if (!backend.loadAdapter) throw new Error(`${backend.name} cannot load LoRA adapters at run time, so a run on it cannot train inside the run (set "training": null)`);
      const previous = backend.adapter;
      await backend.loadAdapter(adapter.path, adapter.name);
      // The adapter the last rollout used is done with (rounds go between rollouts): the server need not keep every round's.
      if (previous !== null && previous !== adapter.name && isRunAdapter(previous, this.options.runId)) await backend.unloadAdapter?.(previous);
      return;
    }
    const lora = adapter ? [{ path: adapter.path }] : (this.options.initialLora ?? []);
    if (this.released) {
      await backend.reload!(lora);
      this.released = false;
      return;
    }
    const wanted = lora.length === 0 ? null : lora.map(({ path, scale = 1 }) => basename(path) + (scale === 1 ? "" : `@${scale}`)).join("+");
    if (backend.adapter === wanted) return;
    if (!backend.setAdapters) throw new Error(`${backend.name} cannot switch LoRA adapters, so a run on it cannot train inside the run (remove the training block)`);
    await backend.setAdapters(lora);
  }

  private shouldUnload(): boolean {
    const { backend, config } = this.options;
    const unloadable = backend.unload !== undefined && backend.reload !== undefined;
    return unloadable && shouldReleaseModel(config.unloadModel, backend.gpu);
  }
}

/**
 * What a round's next round continues from, installed beside a GGUF adapter: the optimiser state,
 * and the hf trainer's PEFT folder (`<name>-peft`: it trains PEFT adapters and converts each to
 * GGUF, so its next round needs the folder beside the GGUF it is given as the parent).
 */
function installTrainerState(trainedAdapter: string, installedAdapter: string): void {
  installOptimizerState(trainedAdapter, installedAdapter);
  const peft = `${trainedAdapter.replace(/\.gguf$/, "")}-peft`;
  if (!trainedAdapter.endsWith(".gguf") || !existsSync(join(peft, "adapter_config.json"))) return;
  const dest = `${installedAdapter.replace(/\.gguf$/, "")}-peft`;
  rmSync(`${dest}.partial`, { recursive: true, force: true });
  cpSync(peft, `${dest}.partial`, { recursive: true });
  rmSync(dest, { recursive: true, force: true });
  renameSync(`${dest}.partial`, dest);
}

/** Copies the trainer's optimiser state (if it wrote one) beside the installed adapter, atomically. */
function installOptimizerState(trainedAdapter: string, installedAdapter: string): void {
  const from = optimizerStatePath(trainedAdapter);
  const to = optimizerStatePath(installedAdapter);
  if (!existsSync(from)) return;
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, `${to}.partial`);
  renameSync(`${to}.partial`, to);
}

/** Whether a served adapter name is one this run registered (`run-<id>-r<k>-<tag>`): only those are unloaded. */
function isRunAdapter(name: string, runId: number): boolean {
  return new RegExp(`^run-${runId}-r\\d+-[0-9a-f]{10}$`).test(name);
}

/** How long `work` took, in seconds. */
async function seconds(work: () => Promise<void>): Promise<number> {
  const started = Date.now();
  await work();
  return (Date.now() - started) / 1000;
}

function trainerLabel(config: TrainingConfig): string {
  return config.trainer.kind === "command" ? config.trainer.command.join(" ") : `spade ${config.trainer.kind} trainer`;
}
