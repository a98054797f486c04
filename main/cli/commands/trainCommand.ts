import { dirname, isAbsolute, resolve } from "node:path";
import { parseBackendConfig } from "../../../shared/backendConfig.js";
import { parseRunConfig, type TrainerConfig } from "../../../shared/runConfig.js";
import { InputError } from "../../../shared/validation/InputError.js";
import { resolveAdapterRef } from "../../adapters/resolveAdapterRef.js";
import { UnknownAdapterError } from "../../adapters/UnknownAdapterError.js";
import { withAdapter } from "../../adapters/withAdapter.js";
import { evaluateModel } from "../../eval/evaluateModel.js";
import { suiteNeedsSandbox } from "../../eval/evaluateSuite.js";
import { openEnvironmentSandbox, type EnvironmentSandbox } from "../../eval/openEnvironmentSandbox.js";
import { isModelUri } from "../../llm/llama/isModelUri.js";
import { resolveRunConfigPaths } from "../../selfplay/resolveRunConfigPaths.js";
import { openDatabase } from "../../store/openDatabase.js";
import { findAdapterIdByPath } from "../../store/queries/trainingQueries.js";
import { NoTrainingDataError } from "../../training/NoTrainingDataError.js";
import { trainAdapter, type TrainPhase } from "../../training/trainAdapter.js";
import { TrainerCancelledError } from "../../training/TrainerCancelledError.js";
import { TrainerCommandError } from "../../training/TrainerCommandError.js";
import type { Command } from "../Command.js";
import { parseCommandArgs, parseIntegerOption } from "../parseCommandArgs.js";
import { readJsonFile } from "../readJsonFile.js";
import { UsageError } from "../UsageError.js";

export const trainCommand: Command = {
  name: "train",
  usage: "train --config <run.json> --run <id> [--parent <id|name>] [--json]",
  summary: "export a run's data, run the configured trainer, register (and evaluate) the adapter",
  async run(argv) {
    const { values } = parseCommandArgs("train", argv, { config: { type: "string", valueName: "run.json", help: "The run's config, with its trainer block. (required)" }, run: { type: "string", valueName: "id", help: "The run whose data trains the adapter. (required)" }, parent: { type: "string", valueName: "id|name", help: "The adapter to continue training from.", defaultText: "the config's backend.lora adapter, else the base model" }, json: { type: "boolean", help: "Print JSON instead of text." } }, false);
    if (!values.config) throw new UsageError("spade train: --config <run.json> is required");
    const runId = parseIntegerOption("train", "run", values.run);
    if (runId === undefined) throw new UsageError("spade train: --run <id> is required (spade report lists the runs)");
    const configPath = resolve(values.config);
    const configDir = dirname(configPath);
    let config;
    let backend;
    try {
      config = resolveRunConfigPaths(parseRunConfig(readJsonFile("train", configPath), configPath), configDir);
      backend = parseBackendConfig(config.backend, configPath);
    } catch (error) {
      if (error instanceof InputError) throw new UsageError(`spade train: ${error.message}`);
      throw error;
    }
    if (!config.trainer) throw new UsageError(`spade train: ${configPath} has no "trainer" block (see resources/trainers/README.md)`);
    if (backend.kind !== "llama" || isModelUri(backend.modelPath)) {
      throw new UsageError(`spade train: the backend must be a local GGUF model (backend.kind "llama" with a file path): adapters are checked against it and applied to it. For a vLLM server, run your trainer on \`spade export\` output and serve the adapter there.`);
    }
    const trainer = resolveTrainerPaths(config.trainer, configDir);

    const db = openDatabase(config.db);
    const abort = new AbortController();
    const onSignal = () => {
      process.stderr.write("\nstopping the trainer...\n");
      abort.abort();
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    let sandbox: EnvironmentSandbox | null = null;
    try {
      const parentId = findParent(db, values.parent, backend.lora?.[0]?.path ?? null, configDir);
      const progress = new TrainProgress(values.json ?? false);
      const result = await trainAdapter({
        db,
        runId,
        trainer,
        baseModelPath: backend.modelPath,
        parentId,
        defaultCwd: configDir,
        signal: abort.signal,
        onLog: (line) => progress.log(line),
        onProgress: (phase, fraction) => progress.phase(phase, fraction),
        evaluate: trainer.eval
          ? async (adapterPath) => {
              const suitePath = trainer.eval!.suite;
              if (suiteNeedsSandbox(suitePath)) sandbox ??= await openEnvironmentSandbox({ stepTimeoutMs: config.sandbox.stepTimeoutMs });
              return evaluateModel(withAdapter(backend, adapterPath), configDir, {
                suitePath,
                limit: trainer.eval!.limit ?? undefined,
                maxTokens: trainer.eval!.maxTokens,
                maxTurns: config.maxTurns,
                openEnvironment: sandbox?.open,
                signal: abort.signal,
              });
            }
          : undefined,
      });
      const { adapter, evaluation } = result;
      if (values.json) {
        const { report, ...gate } = evaluation ?? { report: null };
        process.stdout.write(
          JSON.stringify({
            adapter: { id: adapter.id, name: adapter.name, path: adapter.path, runId: adapter.runId, parentId: adapter.parentId, status: adapter.status, metrics: adapter.metrics },
            dataset: { files: result.manifest.files, counts: result.manifest.counts },
            evaluation: evaluation ? { ...gate, items: report && "items" in report ? report.items : [] } : null,
          }) + "\n",
        );
      } else {
        process.stderr.write(`adapter ${adapter.name} ${adapter.status}: ${adapter.path}\n`);
        if (evaluation) process.stderr.write(`${evaluation.reason}\n`);
        if (evaluation?.promoted || !evaluation) process.stderr.write(`use it: set backend.lora to [{"path": "${adapter.path}"}] in the run config\n`);
      }
      return 0;
    } catch (error) {
      if (error instanceof TrainerCancelledError) {
        process.stderr.write(`${error.message}\n`);
        return 130;
      }
      if (error instanceof NoTrainingDataError || error instanceof TrainerCommandError || error instanceof UnknownAdapterError || error instanceof InputError) {
        throw new UsageError(`spade train: ${error.message}`);
      }
      throw error;
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      await (sandbox as EnvironmentSandbox | null)?.dispose();
      db.close();
    }
  },
};

function resolveTrainerPaths(trainer: TrainerConfig, configDir: string): TrainerConfig {
  const abs = (path: string) => (isAbsolute(path) ? path : resolve(configDir, path));
  return { ...trainer, cwd: trainer.cwd === null ? null : abs(trainer.cwd), eval: trainer.eval && { ...trainer.eval, suite: abs(trainer.eval.suite) } };
}

/** The adapter to continue from: --parent, else the registered adapter the config's backend applies. */
function findParent(db: ReturnType<typeof openDatabase>, ref: string | undefined, loraPath: string | null, configDir: string): number | null {
  if (ref !== undefined) {
    const { adapter } = resolveAdapterRef(db, ref, configDir);
    if (!adapter) throw new UsageError(`spade train: --parent ${ref} is not a registered adapter`);
    return adapter.id;
  }
  if (loraPath === null) return null;
  const id = findAdapterIdByPath(db, isAbsolute(loraPath) ? loraPath : resolve(configDir, loraPath));
  if (id === null) process.stderr.write(`note: backend.lora ${loraPath} is not a registered adapter; the new adapter is recorded as trained from the base model\n`);
  return id;
}

/** The trainer's log and a progress line on stderr. */
class TrainProgress {
  private current: TrainPhase | null = null;
  constructor(private readonly quiet: boolean) {}

  log(line: string): void {
    if (!this.quiet || line.startsWith("[spade]")) process.stderr.write(`${line}\n`);
  }

  phase(phase: TrainPhase, fraction: number | null): void {
    if (phase === this.current && fraction === null) return;
    this.current = phase;
    if (fraction === null) process.stderr.write(`-- ${phase}\n`);
    else if (process.stderr.isTTY) process.stderr.write(`-- ${phase} ${Math.round(fraction * 100)}%\n`);
  }
}
