import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { exportRunData, RunExportNotFoundError } from "../../exports/exportRunData.js";
import { isRunExportFormat, runExportFormats } from "../../exports/RunExportManifest.js";
import { openDatabase } from "../../store/openDatabase.js";
import { exportFormats, isExportFormat } from "../../training/exportFormats.js";
import { exportTrainingBatch } from "../../training/exportTrainingBatch.js";
import { ExportRunNotFoundError, exportTrainingData } from "../../training/exportTrainingData.js";
import type { Command } from "../Command.js";
import { parseCommandArgs, parseIntegerOption } from "../parseCommandArgs.js";
import { UsageError } from "../UsageError.js";

export const exportCommand: Command = {
  name: "export",
  usage: "export --db <path> [--run <id>] --format <grpo|designer|trl-sft|trl-kto|art|batch|verl|metrics-csv|tensorboard> --out <dir> [--include-hinted] [--include-errored] [--best <n>] [--json]",
  summary: "training data (JSONL + manifest.json) from stored plays and designer attempts; verl prompts; run metrics as CSV or TensorBoard events",
  async run(argv) {
    const { values } = parseCommandArgs(
      "export",
      argv,
      {
        db: { type: "string", valueName: "path", help: "Workspace database (SQLite file). (required)" },
        run: { type: "string", valueName: "id", help: "Only this run.", defaultText: "every run" },
        format: { type: "string", valueName: "grpo|designer|trl-sft|trl-kto|art|batch|verl|metrics-csv|tensorboard", help: "Export format (batch: the token-exact training batch). (required)" },
        out: { type: "string", valueName: "dir", help: "Folder to write the JSONL files and manifest.json into. (required)" },
        "include-hinted": { type: "boolean", help: "Include hinted plays." },
        "include-errored": { type: "boolean", help: "Include errored plays." },
        best: { type: "string", valueName: "n", help: "trl-sft: keep the n best plays of each group.", defaultText: "every play" },
        json: { type: "boolean", help: "Print the manifest as JSON." },
      },
      false,
    );
    if (!values.db) throw new UsageError("spade export: --db <path> is required");
    if (!values.out) throw new UsageError("spade export: --out <dir> is required");
    const formats = [...exportFormats, ...runExportFormats, "batch"].join(", ");
    if (!values.format) throw new UsageError(`spade export: --format is required (one of ${formats})`);
    const format = values.format;
    if (format === "batch") return exportBatch(values);
    if (!isExportFormat(format) && !isRunExportFormat(format)) throw new UsageError(`spade export: --format must be one of ${formats}, got "${format}"`);
    if (!existsSync(values.db)) throw new UsageError(`spade export: ${values.db} does not exist`);
    const runId = parseIntegerOption("export", "run", values.run);
    const best = parseIntegerOption("export", "best", values.best);
    if (best !== undefined && best < 1) throw new UsageError(`spade export: --best expects a whole number >= 1, got ${best}`);
    const db = openDatabase(values.db, { readonly: true });
    if (isRunExportFormat(format)) {
      try {
        const manifest = exportRunData(db, { format, outDir: resolve(values.out), runId, dbLabel: resolve(values.db) });
        if (values.json) process.stdout.write(JSON.stringify(manifest) + "\n");
        for (const file of manifest.files) process.stderr.write(`${file.path}: ${file.bytes} bytes\n`);
        for (const note of manifest.notes ?? []) process.stderr.write(`note: ${note}\n`);
        return 0;
      } catch (error) {
        if (error instanceof RunExportNotFoundError) throw new UsageError(`spade export: ${error.message}`);
        throw error;
      } finally {
        db.close();
      }
    }
    let manifest;
    try {
      manifest = exportTrainingData(db, {
        formats: [format],
        outDir: resolve(values.out),
        runId,
        includeHinted: values["include-hinted"] ?? false,
        includeErrored: values["include-errored"] ?? false,
        sftBestPerGroup: best,
        dbLabel: resolve(values.db),
      });
    } catch (error) {
      if (error instanceof ExportRunNotFoundError) throw new UsageError(`spade export: ${error.message}`);
      throw error;
    } finally {
      db.close();
    }
    if (values.json) process.stdout.write(JSON.stringify(manifest) + "\n");
    for (const file of manifest.files) {
      const counts = Object.entries(manifest.counts[file.format] ?? {})
        .filter(([, value]) => value > 0)
        .map(([key, value]) => `${key} ${value}`)
        .join(", ");
      process.stderr.write(`${file.path}: ${file.lines} lines (${counts || "nothing to export"})\n`);
    }
    return 0;
  },
};

/** `--format batch`: the token-exact training batch (README "Training inside the run"). */
function exportBatch(values: { db?: string; run?: string; out?: string; "include-hinted"?: boolean; "include-errored"?: boolean; json?: boolean }): number {
  if (!existsSync(values.db!)) throw new UsageError(`spade export: ${values.db} does not exist`);
  const runId = parseIntegerOption("export", "run", values.run);
  const db = openDatabase(values.db!, { readonly: true });
  let result;
  try {
    result = exportTrainingBatch(db, { outDir: resolve(values.out!), runId, includeHinted: values["include-hinted"] ?? false, includeErrored: values["include-errored"] ?? false, dbLabel: resolve(values.db!) });
  } catch (error) {
    if (error instanceof ExportRunNotFoundError) throw new UsageError(`spade export: ${error.message}`);
    throw error;
  } finally {
    db.close();
  }
  if (values.json) process.stdout.write(JSON.stringify({ file: result.file, ...result.header, untokenised: result.untokenised }) + "\n");
  const leftOut = Object.entries(result.header["left out"]).filter(([, value]) => value > 0).map(([key, value]) => `${key} ${value}`).join(", ");
  process.stderr.write(`batch.jsonl: ${result.header.roles.agent} agent and ${result.header.roles.designer} designer samples, ${result.untokenised} rows without token ids${leftOut ? `; left out: ${leftOut}` : ""}\n`);
  return 0;
}
