import { dirname, resolve } from "node:path";
import { describeResumeChange } from "../../../shared/configDiff.js";
import { describeSchedule } from "../../../shared/describeSchedule.js";
import { parseRunConfig } from "../../../shared/runConfig.js";
import { InputError } from "../../../shared/validation/InputError.js";
import { resolveAdapterRef } from "../../adapters/resolveAdapterRef.js";
import { withAdapter } from "../../adapters/withAdapter.js";
import { createBackend } from "../../llm/createBackend.js";
import { describeBackend } from "../../llm/describeBackend.js";
import { checkRunConfigFiles } from "../../selfplay/checkRunConfigFiles.js";
import { checkRunConfigSources } from "../../selfplay/checkRunConfigSources.js";
import { findResumableRun } from "../../selfplay/findResumableRun.js";
import { resolveRunConfigPaths } from "../../selfplay/resolveRunConfigPaths.js";
import { RunController } from "../../selfplay/RunController.js";
import { openDatabase } from "../../store/openDatabase.js";
import { listCorpusProblems } from "../../store/queries/documents.js";
import { updateRunConfig } from "../../store/queries/runs.js";
import type { Command } from "../Command.js";
import { parseCommandArgs } from "../parseCommandArgs.js";
import { readJsonFile } from "../readJsonFile.js";
import { RunProgress } from "../RunProgress.js";
import { settleOnSecondSignal } from "../settleOnSecondSignal.js";
import { UsageError } from "../UsageError.js";

export const runCommand: Command = {
  name: "run",
  usage: "run --config <file.json> [--resume [--force-config]] [--adapter <id|name|path>]",
  summary: "run SPADE self-play; --resume continues the unfinished run with this config (--force-config: with new values of the keys safe to change); --adapter plays with a LoRA (with --resume: from there on)",
  async run(argv) {
    const { values } = parseCommandArgs("run", argv, { config: { type: "string", valueName: "file.json", help: "Run config (see resources/examples/first-run.json). (required)" }, resume: { type: "boolean", help: "Continue the unfinished run of this config instead of starting a new one; a config that differs from the stored one is refused, naming the keys." }, "force-config": { type: "boolean", help: "With --resume: go on with the new values of keys safe to change (backend.*, iterations, token budgets, time-outs); others stay refused." }, adapter: { type: "string", valueName: "id|name|path", help: "Play with this LoRA adapter (with --resume: from there on).", defaultText: "the config's backend.lora" } }, false);
    if (!values.config) throw new UsageError("spade run: --config <file.json> is required");
    if (values["force-config"] && !values.resume) throw new UsageError("spade run: --force-config only goes with --resume");
    const configPath = resolve(values.config);
    let config;
    try {
      config = resolveRunConfigPaths(parseRunConfig(readJsonFile("run", configPath), configPath), dirname(configPath));
      checkRunConfigFiles(config, configPath);
      await checkRunConfigSources(config, configPath);
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
      const found = findResumableRun(db, config);
      if (!found) {
        db.close();
        throw new UsageError(`spade run --resume: ${config.db} has no unfinished run with this config (seed ${config.seed}) nor any other to resume`);
      }
      const { run, changes } = found;
      if (found.completed) {
        db.close();
        process.stderr.write(`spade run --resume: run ${run.id} with this config has completed (${run.iterationsCompleted} of ${config.iterations} iterations); nothing to resume (start a new run without --resume)\n`);
        return 0;
      }
      if (changes.refused.length > 0 || (changes.safe.length > 0 && !values["force-config"])) {
        db.close();
        throw new UsageError(resumeRefusal(run.id, changes.safe.map(describeResumeChange), changes.refused.map(describeResumeChange)));
      }
      if (JSON.stringify(run.config) !== JSON.stringify(config)) updateRunConfig(db, run.id, config); // a new adapter or forced keys from here on
      if (changes.safe.length > 0) process.stderr.write(`run ${run.id} goes on with new values of ${changes.safe.map(describeResumeChange).join(", ")}\n`);
      runId = (await controller.resume(run.id)).runId;
      process.stderr.write(`resuming run ${runId} at iteration ${run.iterationsCompleted} of ${config.iterations}\n`);
    } else {
      runId = (await controller.start(config)).runId;
      process.stderr.write(`run ${runId} started (${config.db})\n`);
      const schedule = describeSchedule(config);
      if (schedule) process.stderr.write(`note: ${schedule}\n`);
    }
    let signals = 0;
    const pauseOnSignal = (signal: NodeJS.Signals) => {
      signals += 1;
      if (signals === 1) {
        process.stderr.write(`\npausing after the current step (resume with --resume; ${signal} again pauses at once)...\n`);
        void controller.pause(runId).catch(() => undefined);
        return;
      }
      // Asked twice: store the pause now (a run that has just completed stays so), then go.
      const settled = settleOnSecondSignal(db, runId, process.pid);
      process.stderr.write(`${settled.message}\n`);
      process.exit(settled.code);
    };
    process.on("SIGINT", pauseOnSignal);
    process.on("SIGTERM", pauseOnSignal);
    const status = await controller.wait(runId);
    const code = status === "completed" ? 0 : status === "paused" ? 130 : 1;
    // The run is settled: a Ctrl-C while the process winds down (its children closing) ends it with
    // the run's own code, not the signal's 130.
    const finish = () => process.exit(code);
    process.on("SIGINT", finish);
    process.on("SIGTERM", finish);
    process.off("SIGINT", pauseOnSignal);
    process.off("SIGTERM", pauseOnSignal);
    // The run's summary repeats what its corpus left out: said once at the start, it has scrolled away.
    for (const problem of listCorpusProblems(db, runId)) process.stderr.write(`note: ${problem.message}\n`);
    db.close();
    return code;
  },
};

/** Why `--resume` does not go on, naming the differing keys and what to do. */
function resumeRefusal(runId: number, safe: string[], refused: string[]): string {
  const lines = [`spade run --resume: the config differs from the one stored with unfinished run ${runId}`];
  if (refused.length > 0) {
    lines.push(`  cannot change on a run with stored results: ${refused.join(", ")}`);
    if (safe.length > 0) lines.push(`  could change with --resume --force-config: ${safe.join(", ")}`);
    lines.push("  put the stored values back to resume, or start a new run (without --resume)");
  } else {
    lines.push(`  safe to change: ${safe.join(", ")}`);
    lines.push("  rerun with --resume --force-config to continue the run with these values");
  }
  return lines.join("\n");
}
