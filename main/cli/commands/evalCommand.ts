import { isAbsolute, resolve } from "node:path";
import { InputError } from "../../../shared/validation/InputError.js";
import { resolveAdapterRef } from "../../adapters/resolveAdapterRef.js";
import { UnknownAdapterError } from "../../adapters/UnknownAdapterError.js";
import { withAdapter } from "../../adapters/withAdapter.js";
import { evaluateModel } from "../../eval/evaluateModel.js";
import { suiteNeedsSandbox } from "../../eval/evaluateSuite.js";
import { openEnvironmentSandbox } from "../../eval/openEnvironmentSandbox.js";
import { readEvalConfig } from "../../eval/readEvalConfig.js";
import { storeEvalReport } from "../../eval/storeEvalReport.js";
import { SuiteFormatError } from "../../eval/SuiteFormatError.js";
import type { Adapter } from "../../store/queries/adapters.js";
import { openDatabase } from "../../store/openDatabase.js";
import { findAdapterIdByPath } from "../../store/queries/trainingQueries.js";
import { getAdapter } from "../../store/queries/adapters.js";
import type { Command } from "../Command.js";
import { parseCommandArgs, parseIntegerOption } from "../parseCommandArgs.js";
import { readJsonFile } from "../readJsonFile.js";
import { UsageError } from "../UsageError.js";

export const evalCommand: Command = {
  name: "eval",
  usage: "eval --suite <file.jsonl|dir> --config <file.json> [--adapter <id|name|path>] [--limit <n>] [--max-tokens <n>] [--plays <n>] [--seed <n>] [--json]",
  summary: "held-out evaluation of the model (or an adapter); results stored per adapter",
  async run(argv) {
    const { values } = parseCommandArgs(
      "eval",
      argv,
      {
        suite: { type: "string", valueName: "file.jsonl|dir", help: "Held-out suite: question/answer JSONL or a folder of environments. (required)" },
        config: { type: "string", valueName: "file.json", help: "Run or eval config naming the backend (and db). (required)" },
        adapter: { type: "string", valueName: "id|name|path", help: "Evaluate with this LoRA adapter.", defaultText: "the config's backend as it is" },
        limit: { type: "string", valueName: "n", help: "Evaluate only the first n items.", defaultText: "every item" },
        json: { type: "boolean", help: "Print JSON instead of text." },
        "max-tokens": { type: "string", valueName: "n", help: "Token budget of each answer.", defaultText: "1024 for questions, 512 per environment turn" },
        plays: { type: "string", valueName: "n", help: "Unhinted plays per environment (environment suites).", defaultText: "4" },
        seed: { type: "string", valueName: "n", help: "Seed of the first play.", defaultText: "0" },
      },
      false,
    );
    if (!values.suite) throw new UsageError("spade eval: --suite <file.jsonl|dir> is required");
    if (!values.config) throw new UsageError("spade eval: --config <file.json> is required");
    const limit = positive("limit", parseIntegerOption("eval", "limit", values.limit));
    const maxTokens = positive("max-tokens", parseIntegerOption("eval", "max-tokens", values["max-tokens"]));
    const plays = positive("plays", parseIntegerOption("eval", "plays", values.plays));
    const seed = parseIntegerOption("eval", "seed", values.seed) ?? 0;
    const configPath = resolve(values.config);
    let config;
    try {
      config = readEvalConfig(readJsonFile("eval", configPath), configPath);
    } catch (error) {
      if (error instanceof InputError) throw new UsageError(`spade eval: ${error.message}`);
      throw error;
    }
    const suitePath = resolve(values.suite);
    let environments: boolean;
    try {
      environments = suiteNeedsSandbox(suitePath);
    } catch (error) {
      throw new UsageError(`spade eval: ${(error as Error).message}`);
    }

    const db = config.db ? openDatabase(config.db) : null;
    try {
      let backend = config.backend;
      let adapter: Adapter | null = null;
      let adapterPath: string | null = null;
      if (values.adapter) {
        const resolved = resolveAdapterRef(db, values.adapter);
        adapter = resolved.adapter;
        adapterPath = resolved.path;
        backend = withAdapter(config.backend, resolved.path);
      } else if (config.backend.kind === "llama" && config.backend.lora?.length === 1) {
        const path = config.backend.lora[0]!.path;
        adapterPath = isAbsolute(path) ? path : resolve(config.baseDir, path);
        const id = db ? findAdapterIdByPath(db, adapterPath) : null;
        adapter = id === null ? null : getAdapter(db!, id);
      }

      const sandbox = environments ? await openEnvironmentSandbox() : null;
      let report;
      try {
        report = await evaluateModel(backend, config.baseDir, {
          suitePath,
          suiteName: values.suite,
          limit,
          maxTokens,
          playsPerEnvironment: plays,
          seed,
          openEnvironment: sandbox?.open,
          onProgress: (done, total) => {
            if (!values.json || process.stderr.isTTY) process.stderr.write(`\r${done}/${total}${done === total ? "\n" : ""}`);
          },
        }, config.userBackend);
      } finally {
        await sandbox?.dispose();
      }

      if (db) {
        if (adapterPath !== null && adapter === null) {
          process.stderr.write(`note: ${adapterPath} is not a registered adapter, so the result is not stored (register it with spade adapters add)\n`);
        } else {
          storeEvalReport(db, adapter?.id ?? null, suitePath, report);
        }
      }
      if (values.json) {
        process.stdout.write(JSON.stringify(report) + "\n");
      } else {
        const ci = ([low, high]: [number, number], scale: number, digits: number) => `, 95% CI [${(low * scale).toFixed(digits)}, ${(high * scale).toFixed(digits)}]`;
        const model = adapter ? ` with adapter ${adapter.name}` : adapterPath ? ` with ${adapterPath}` : "";
        if (!("kind" in report)) process.stdout.write(`${values.suite}: ${report.correct}/${report.n} correct (${(report.accuracy * 100).toFixed(1)}%${ci(report.interval, 100, 1)}${report.samples ? `, ${report.samples} samples each` : ""})${model}\n`);
        else if (report.kind === "tool-use") process.stdout.write(`${values.suite}: ${report.correct}/${report.n} items pass the state and response checks (${(report.accuracy * 100).toFixed(1)}%${ci(report.interval, 100, 1)})${model}\n`);
        else if (report.kind === "acebench") process.stdout.write(`${values.suite}: ${report.correct}/${report.n} items end in the possible answer's state (end-to-end ${(report.accuracy * 100).toFixed(1)}%${ci(report.interval, 100, 1)}; process ${(report.processAccuracy * 100).toFixed(1)}%${ci(report.processInterval, 100, 1)}; user simulator: ${report.userSimulator})${model}\n`);
        else if (report.kind === "tau2") process.stdout.write(`${values.suite}: ${report.n} tasks x ${report.trials} trials, pass@1 ${(report.accuracy * 100).toFixed(1)}%${ci(report.interval, 100, 1)} (${report.passed}/${report.simulations} passed, ${report.errors} errors; ${report.domains.map((d) => `${d.label} ${(d.passAt1 * 100).toFixed(1)}%`).join(", ")}; user simulator: ${report.userSimulator})${model}\n`);
        else if (report.kind === "code") process.stdout.write(`${values.suite}: ${report.n} problems x ${report.samples} samples, pass@1 ${(report.passAt1 * 100).toFixed(1)}%${ci(report.interval, 100, 1)}${model}\n`);
        else process.stdout.write(`${values.suite}: ${report.n} environments, ${report.plays} plays, mean return ${report.meanReturn.toFixed(3)}${ci(report.interval, 1, 3)}, win rate ${(report.winRate * 100).toFixed(1)}%${model}\n`);
      }
      return 0;
    } catch (error) {
      if (error instanceof UnknownAdapterError || error instanceof SuiteFormatError || error instanceof InputError) throw new UsageError(`spade eval: ${error.message}`);
      throw error;
    } finally {
      db?.close();
    }
  },
};

function positive(option: string, value: number | undefined): number | undefined {
  if (value !== undefined && value < 1) throw new UsageError(`spade eval: --${option} expects a whole number >= 1, got ${value}`);
  return value;
}

