import { existsSync } from "node:fs";
import { importEnvironments } from "../../experiments/importEnvironments.js";
import { readEnvironmentSources } from "../../experiments/readEnvironmentSources.js";
import { SandboxPool } from "../../sandbox/SandboxPool.js";
import { openDatabase } from "../../store/openDatabase.js";
import type { Command } from "../Command.js";
import { parseCommandArgs } from "../parseCommandArgs.js";
import { UsageError } from "../UsageError.js";

export const envsImportCommand: Command = {
  name: "envs import",
  usage: "envs import --db <path> --in <file.jsonl | directory> --set <name> [--json]",
  summary: "validate environments and store the valid ones in a named set",
  async run(argv) {
    const { values } = parseCommandArgs("envs import", argv, { db: { type: "string", valueName: "path", help: "Workspace database (SQLite file). (required)" }, in: { type: "string", valueName: "file.jsonl|directory", help: "Environments to import: a JSONL file or a folder of .py files. (required)" }, set: { type: "string", valueName: "name", help: "The environment set to store them in. (required)" }, json: { type: "boolean", help: "Print the import report as JSON." } }, false);
    if (!values.db) throw new UsageError("spade envs import: --db <path> is required");
    if (!values.in) throw new UsageError("spade envs import: --in <file.jsonl | directory> is required");
    if (!values.set?.trim()) throw new UsageError("spade envs import: --set <name> is required");
    if (!existsSync(values.in)) throw new UsageError(`spade envs import: ${values.in} does not exist`);
    const read = readEnvironmentSources(values.in);
    const db = openDatabase(values.db);
    const pool = await SandboxPool.create();
    try {
      // A line per environment as its validation ends (seconds each), on stderr: stdout keeps the report.
      const report = await importEnvironments(db, pool, values.set.trim(), read, {
        onValidated: (done, total, name, outcome) => process.stderr.write(`[${done}/${total}] ${name}: ${outcome.valid ? `valid${outcome.className ? ` (${outcome.className})` : ""}` : `rejected: ${firstLine(outcome.error)}`}\n`),
      });
      if (values.json) process.stdout.write(JSON.stringify(report) + "\n");
      else {
        process.stdout.write(`set "${report.set}": ${report.imported} imported, ${report.rejected.length} rejected\n`);
        for (const rejected of report.rejected) process.stdout.write(`  rejected ${rejected.name}: ${rejected.error}\n`);
      }
      return 0;
    } finally {
      await pool.dispose();
      db.close();
    }
  },
};

function firstLine(text: string): string {
  return text.split("\n").find((line) => line.trim() !== "")?.trim() ?? text;
}
