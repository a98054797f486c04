import { existsSync, writeFileSync } from "node:fs";
import { envExportFilters, type EnvExportFilter } from "../../../shared/envExport.js";
import { selectRunEnvironments } from "../../experiments/selectRunEnvironments.js";
import { openDatabase } from "../../store/openDatabase.js";
import { getRun } from "../../store/queries/runs.js";
import type { Command } from "../Command.js";
import { parseCommandArgs, parseIntegerOption } from "../parseCommandArgs.js";
import { UsageError } from "../UsageError.js";

export const envsExportCommand: Command = {
  name: "envs export",
  usage: "envs export --db <path> [--run <id>] [--filter valid|memory|pinned] --out <file.jsonl>",
  summary: "write environments as JSONL, one per line",
  async run(argv) {
    const { values } = parseCommandArgs("envs export", argv, { db: { type: "string", valueName: "path", help: "Workspace database (SQLite file). (required)" }, run: { type: "string", valueName: "id", help: "Only this run's environments.", defaultText: "every run" }, filter: { type: "string", valueName: "valid|memory|pinned", help: "Which environments to write.", defaultText: "valid" }, out: { type: "string", valueName: "file.jsonl", help: "The file to write. (required)" } }, false);
    if (!values.db) throw new UsageError("spade envs export: --db <path> is required");
    if (!values.out) throw new UsageError("spade envs export: --out <file.jsonl> is required");
    if (!existsSync(values.db)) throw new UsageError(`spade envs export: ${values.db} does not exist`);
    const filter = (values.filter ?? "valid") as EnvExportFilter;
    if (!envExportFilters.includes(filter)) throw new UsageError(`spade envs export: --filter expects one of ${envExportFilters.join(", ")}, got "${values.filter}"`);
    const runId = parseIntegerOption("envs export", "run", values.run);
    const db = openDatabase(values.db, { readonly: true });
    try {
      if (runId !== undefined && !getRun(db, runId)) throw new UsageError(`spade envs export: run ${runId} does not exist in ${values.db}`);
      const lines = selectRunEnvironments(db, { runId, filter });
      writeFileSync(values.out, lines.map((line) => JSON.stringify(line) + "\n").join(""));
      process.stderr.write(`wrote ${lines.length} environments to ${values.out}\n`);
    } finally {
      db.close();
    }
    return 0;
  },
};
