import { dirname, resolve } from "node:path";
import { parseRunConfig } from "../../../shared/runConfig.js";
import { InputError } from "../../../shared/validation/InputError.js";
import { resolveAdapterRef } from "../../adapters/resolveAdapterRef.js";
import { withAdapter } from "../../adapters/withAdapter.js";
import { createBackend } from "../../llm/createBackend.js";
import { describeBackend } from "../../llm/describeBackend.js";
import { checkRunConfigFiles } from "../../selfplay/checkRunConfigFiles.js";
import { findResumableRun } from "../../selfplay/findResumableRun.js";
import { resolveRunConfigPaths } from "../../selfplay/resolveRunConfigPaths.js";
import { RunController } from "../../selfplay/RunController.js";
import { openDatabase } from "../../store/openDatabase.js";
import { updateRunConfig } from "../../store/queries/runs.js";
import type { Command } from "../Command.js";
import { parseCommandArgs } from "../parseCommandArgs.js";
import { readJsonFile } from "../readJsonFile.js";
import { RunProgress } from "../RunProgress.js";
import { UsageError } from "../UsageError.js";

export const runCommand: Command = {
  name: "run",
  usage: "run --config <file.json> [--resume] [--adapter <id|name|path>]",
  summary: "run SPADE self-play; --resume continues the unfinished run with this config; --adapter plays with a LoRA (with --resume: from there on)",
  async run(argv) {
    const { values } = parseCommandArgs("run", argv, { config: { type: "string", valueName: "file.json", help: "Run config (see resources/examples/first-run.json). (required)" }, resume: { type: "boolean", help: "Continue the unfinished run of this config instead of starting a new one." }, adapter: { type: "string", valueName: "id|name|path", help: "Play with this LoRA adapter (with --resume: from there on).", defaultText: "the config's backend.lora" } }, false);
    if (!values.config) throw new UsageError("spade run: --config <file.json> is required");
    const configPath = resolve(values.config);
    let config;
    try {
      config = resolveRunConfigPaths(parseRunConfig(readJsonFile("run", configPath), configPath), dirname(configPath));
      checkRunConfigFiles(config, configPath);
    } catch (error) {
      if (error instanceof InputError) throw new UsageError(`spade run: ${error.message}`);
      throw error;
    }
    const db = openDatabase(config.db);
    if (values.adapter) {
      try {
        config = { ...config, backend: withAdapter(config.backend, resolveAdapterRef(db, values.adapter, dirname(configPath)).path) };
      } catch (error) {
        db.close();
        throw new UsageError(`spade run: --adapter: ${(error as Error).message}`);
      }
    }
    const controller = new RunController({
      db,
      createBackend: async (c) => {
        const backend = await createBackend(c.backend);
        process.stderr.write(`${describeBackend(backend)}\n`);
        return backend;
      },
    });
    const progress = new RunProgress();
    controller.on((event) => progress.handle(event));
    let runId: number;
    if (values.resume) {
      const run = findResumableRun(db, config);
      if (!run) throw new UsageError(`spade run --resume: ${config.db} has no unfinished run with this config (seed ${config.seed})`);
      if (JSON.stringify(run.config) !== JSON.stringify(config)) updateRunConfig(db, run.id, config); // a new adapter from here on
      runId = (await controller.resume(run.id)).runId;
      process.stderr.write(`resuming run ${runId} at iteration ${run.iterationsCompleted + 1}\n`);
    } else {
      runId = (await controller.start(config)).runId;
      process.stderr.write(`run ${runId} started (${config.db})\n`);
    }
    const pauseOnSignal = () => {
      process.stderr.write("\npausing after the current step (resume with --resume)...\n");
      void controller.pause(runId).catch(() => undefined);
    };
    process.once("SIGINT", pauseOnSignal);
    process.once("SIGTERM", pauseOnSignal);
    const status = await controller.wait(runId);
    db.close();
    if (status === "completed") return 0;
    return status === "paused" ? 130 : 1;
  },
};
