import { existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { TrainerConfig } from "../../shared/runConfig.js";
import { adaptersDirFor } from "../adapters/adaptersDirFor.js";
import { installAdapterFile } from "../adapters/installAdapterFile.js";
import { nextAdapterName } from "../adapters/nextAdapterName.js";
import { sha256File } from "../adapters/sha256File.js";
import type { SuiteEvalReport } from "../eval/evaluateSuite.js";
import { suiteScore } from "../eval/evaluateSuite.js";
import { promotionGate } from "../eval/promotionGate.js";
import { latestEvalResult, storedScore, storeEvalReport } from "../eval/storeEvalReport.js";
import { checkModelFile } from "../llm/gguf/checkModelFile.js";
import type { WritableDb } from "../store/DatabaseHandle.js";
import { getAdapter, insertAdapter, updateAdapter, type Adapter } from "../store/queries/adapters.js";
import { getRun } from "../store/queries/runs.js";
import type { ExportManifest } from "./ExportManifest.js";
import { exportTrainingData } from "./exportTrainingData.js";
import { findAdapterOutput } from "./findAdapterOutput.js";
import { NoTrainingDataError } from "./NoTrainingDataError.js";
import { renderTrainerCommand } from "./renderTrainerCommand.js";
import { runTrainerProcess } from "./runTrainerProcess.js";
import { AdapterEvaluationError } from "./AdapterEvaluationError.js";
import { TrainerCancelledError } from "./TrainerCancelledError.js";
import { TrainerFailedError } from "./TrainerFailedError.js";

export type TrainPhase = "exporting" | "training" | "converting" | "registering" | "evaluating";

export interface TrainAdapterOptions {
  db: WritableDb;
  runId: number;
  /** The run config's trainer block, its paths (cwd, eval.suite) already absolute. */
  trainer: TrainerConfig;
  /** The base model GGUF: the adapter is checked against it and its sha256 recorded. */
  baseModelPath: string;
  /** The adapter the new one continues from. Defaults to null (trained on the base model). */
  parentId?: number | null;
  /** The trainer's working folder when trainer.cwd is unset. Defaults to the process's working directory. */
  defaultCwd?: string;
  /** Where each job's dataset and trainer output go. Defaults to `training/` next to the database. */
  workDir?: string;
  /** Where adapter versions are kept. Defaults to `adapters/` next to the database. */
  adaptersDir?: string;
  /** Cancels the trainer (the adapter is recorded as "cancelled"). */
  signal?: AbortSignal;
  /** Every trainer log line and the workbench's own notes. Defaults to none. */
  onLog?: (line: string) => void;
  /** Phase changes, and the trainer's `PROGRESS` fraction while training. Defaults to none. */
  onProgress?: (phase: TrainPhase, fraction: number | null) => void;
  /** A loaded model freed while the trainer runs and loaded again after (e.g. LlamaBackend). Defaults to none. */
  release?: { unload(): Promise<void>; reload(): Promise<void> };
  /** Evaluates the model with an adapter file (null: the base model). Required when trainer.eval is set. */
  evaluate?: (adapterPath: string | null) => Promise<SuiteEvalReport>;
}

/** The held-out check of a new adapter against its parent. */
export interface AdapterEvaluation {
  suite: string;
  n: number;
  score: number;
  parentScore: number;
  delta: number;
  margin: number;
  promoted: boolean;
  reason: string;
  report: SuiteEvalReport;
}

export interface TrainAdapterResult {
  adapter: Adapter;
  manifest: ExportManifest;
  evaluation: AdapterEvaluation | null;
}

/**
 * One training job: export the run's data, run the trainer on it, take its GGUF LoRA back (or
 * convert its PEFT adapter), check it against the base model, copy it to an immutable versioned
 * file and register it with its lineage, log and metrics; then, when the trainer config names a
 * suite, evaluate it against its parent and promote or reject it. The registry row exists from the
 * start (status "training") and ends "ready", "promoted", "rejected", "failed" or "cancelled".
 */
export async function trainAdapter(options: TrainAdapterOptions): Promise<TrainAdapterResult> {
  const { db, runId, trainer } = options;
  if (!getRun(db, runId)) throw new TrainerFailedError(`run ${runId} does not exist in ${db.name}`, "");
  const parent = options.parentId == null ? null : getAdapter(db, options.parentId);
  if (options.parentId != null && !parent) throw new TrainerFailedError(`parent adapter ${options.parentId} is not registered in ${db.name}`, "");
  if (trainer.eval && !options.evaluate) throw new TypeError("trainAdapter: trainer.eval is set but no evaluate function was given");
  const baseInfo = await checkModelFile(options.baseModelPath);

  const adaptersDir = options.adaptersDir ?? adaptersDirFor(db.name);
  const name = nextAdapterName(db, adaptersDir, `run-${runId}`);
  const jobDir = join(options.workDir ?? join(dirname(db.name), "training"), name);
  const datasetDir = join(jobDir, "dataset");
  const outputDir = join(jobDir, "output");
  // The name is new to the registry and the adapter folder: anything here is a crashed job's leftover.
  rmSync(jobDir, { recursive: true, force: true });
  mkdirSync(outputDir, { recursive: true });

  let log = "";
  const note = (line: string) => {
    log += line + "\n";
    options.onLog?.(line);
  };
  options.onProgress?.("exporting", null);
  const exported = exportTrainingData(db, { formats: trainer.formats, outDir: datasetDir, runId, includeHinted: trainer.includeHinted, dbLabel: db.name });
  if (exported.files.every((file) => file.lines === 0)) {
    throw new NoTrainingDataError(`run ${runId} has nothing to train on in ${trainer.formats.join(", ")} (see ${join(datasetDir, "manifest.json")} for what was dropped and why)`);
  }
  note(`[spade] exported ${exported.files.map((file) => `${file.path} (${file.lines} lines)`).join(", ")} to ${datasetDir}`);

  const values = {
    dataset: datasetDir,
    baseModel: trainer.baseModel ?? options.baseModelPath,
    previousAdapter: parent?.path ?? "",
    previousAdapterDir: trainerOutputDirOf(parent) ?? "",
    outputDir,
  };
  const command = renderTrainerCommand(trainer.command, values);
  const manifest = { ...exported, datasetDir, trainerOutputDir: outputDir };
  const destPath = join(adaptersDir, `${name}.gguf`);
  const id = insertAdapter(db, {
    name,
    path: destPath,
    runId,
    parentId: parent?.id ?? null,
    baseModelSha256: await sha256File(options.baseModelPath),
    manifest,
    trainerCommand: command.display,
    status: "training",
  });

  try {
    options.onProgress?.("training", 0);
    note(`[spade] training ${name}: ${command.display}`);
    const cwd = trainer.cwd ?? options.defaultCwd ?? process.cwd();
    const run = async () =>
      runTrainerProcess({
        command,
        cwd,
        env: trainer.env,
        signal: options.signal,
        timeoutMs: trainer.timeoutMs,
        onLine: (line) => {
          log += line + "\n";
          options.onLog?.(line);
        },
        onProgress: (fraction) => options.onProgress?.("training", fraction),
      });
    let trained;
    if (options.release) {
      note("[spade] releasing the model while the trainer runs");
      await options.release.unload();
      try {
        trained = await run();
      } finally {
        await options.release.reload();
        note("[spade] model loaded again");
      }
    } else {
      trained = await run();
    }

    let output = findAdapterOutput(outputDir, log);
    if (output.kind === "peft") {
      if (!trainer.convert) {
        throw new TrainerFailedError(`the trainer wrote a PEFT adapter (${output.dir}) but no GGUF; set trainer.convert to convert it (llama.cpp's convert_lora_to_gguf.py, see resources/trainers/README.md)`, log);
      }
      options.onProgress?.("converting", null);
      const outputFile = join(outputDir, `${name}.gguf`);
      const convert = renderTrainerCommand(trainer.convert, { peftDir: output.dir, outputFile, baseModel: values.baseModel }, "trainer.convert");
      note(`[spade] converting: ${convert.display}`);
      await runTrainerProcess({ command: convert, cwd, env: trainer.env, signal: options.signal, onLine: (line) => note(line) });
      if (!existsSync(outputFile)) throw new TrainerFailedError(`the conversion finished but did not write ${outputFile}`, log);
      output = { kind: "gguf", path: outputFile };
    }

    options.onProgress?.("registering", null);
    const adapterSha256 = await installAdapterFile(output.path, destPath, baseInfo);
    note(`[spade] registered ${name} at ${destPath}`);
    const metrics: Record<string, unknown> = { trainer: trained.metrics, durationMs: trained.durationMs, adapterSha256 };
    updateAdapter(db, id, { status: "ready", log, metrics });

    let evaluation: AdapterEvaluation | null = null;
    if (trainer.eval) {
      options.onProgress?.("evaluating", null);
      try {
        evaluation = await evaluateAgainstParent(options, trainer.eval, id, destPath, parent);
      } catch (error) {
        // The adapter itself is fine: it stays usable, just not evaluated.
        note(`[spade] evaluation failed: ${(error as Error).message}`);
        updateAdapter(db, id, { log, metrics: { ...metrics, evalError: (error as Error).message } });
        throw new AdapterEvaluationError(`${name} was registered, but its evaluation failed: ${(error as Error).message}`, { cause: error });
      }
      note(`[spade] ${evaluation.promoted ? "promoted" : "rejected"}: ${evaluation.reason}`);
      const { report: _report, ...summary } = evaluation;
      updateAdapter(db, id, { status: evaluation.promoted ? "promoted" : "rejected", log, metrics: { ...metrics, eval: summary } });
    }
    return { adapter: getAdapter(db, id)!, manifest: exported, evaluation };
  } catch (error) {
    if (error instanceof AdapterEvaluationError) throw error;
    const cancelled = error instanceof TrainerCancelledError;
    if (error instanceof TrainerFailedError || cancelled) log = mergeLogs(log, error.log);
    note(`[spade] ${cancelled ? "cancelled" : "failed"}: ${(error as Error).message}`);
    updateAdapter(db, id, { status: cancelled ? "cancelled" : "failed", log, metrics: { error: (error as Error).message } });
    throw error;
  }
}

async function evaluateAgainstParent(
  options: TrainAdapterOptions,
  config: NonNullable<TrainerConfig["eval"]>,
  id: number,
  path: string,
  parent: Adapter | null,
): Promise<AdapterEvaluation> {
  const { db } = options;
  const evaluate = options.evaluate!;
  const report = await evaluate(path);
  storeEvalReport(db, id, config.suite, report);
  const stored = latestEvalResult(db, parent?.id ?? null, config.suite, report.n);
  let parentScore = stored ? storedScore(stored) : null;
  if (parentScore === null) {
    const parentReport = await evaluate(parent?.path ?? null);
    storeEvalReport(db, parent?.id ?? null, config.suite, parentReport);
    parentScore = suiteScore(parentReport);
  }
  const score = suiteScore(report);
  const decision = promotionGate(score, parentScore, config.margin);
  return { suite: config.suite, n: report.n, score, parentScore, delta: decision.delta, margin: config.margin, promoted: decision.promoted, reason: decision.reason, report };
}

function trainerOutputDirOf(adapter: Adapter | null): string | null {
  const manifest = adapter?.manifest as { trainerOutputDir?: unknown } | null | undefined;
  return typeof manifest?.trainerOutputDir === "string" ? manifest.trainerOutputDir : null;
}

/** The error's log is the trainer's own; keep the workbench notes written before it. */
function mergeLogs(ours: string, theirs: string): string {
  return theirs !== "" && !ours.includes(theirs) ? ours + theirs : ours;
}
