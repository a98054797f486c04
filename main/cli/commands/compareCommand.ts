import { existsSync } from "node:fs";
import { renderComparisonTable, tableFormats, type TableFormat } from "../../../shared/comparisonTable.js";
import { compareRuns } from "../../experiments/compareRuns.js";
import { formatComparison } from "../../experiments/formatComparison.js";
import { openDatabase } from "../../store/openDatabase.js";
import type { Command } from "../Command.js";
import { parseCommandArgs } from "../parseCommandArgs.js";
import { UsageError } from "../UsageError.js";

export const compareCommand: Command = {
  name: "compare",
  usage: "compare --db <path> --runs <id>,<id>[,...] [--baseline <id>] [--table csv|markdown|latex] [--json]",
  summary: "line up runs' loop metrics, held-out scores and config differences",
  async run(argv) {
    const { values } = parseCommandArgs("compare", argv, { db: { type: "string", valueName: "path", help: "Workspace database (SQLite file). (required)" }, runs: { type: "string", valueName: "id,id[,...]", help: "The runs to line up. (required)" }, json: { type: "boolean", help: "Print JSON instead of text." }, baseline: { type: "string", valueName: "id", help: "The run the held-out table's difference columns are against (one of --runs)." }, table: { type: "string", valueName: "csv|markdown|latex", help: "Print only the held-out table (runs x suites, 95% intervals, mean, difference to --baseline) in this format." } }, false);
    if (!values.db) throw new UsageError("spade compare: --db <path> is required");
    if (!values.runs) throw new UsageError("spade compare: --runs <id>,<id> is required");
    if (!existsSync(values.db)) throw new UsageError(`spade compare: ${values.db} does not exist`);
    const ids = values.runs.split(",").map((part) => part.trim());
    for (const id of ids) if (!/^\d+$/.test(id)) throw new UsageError(`spade compare: --runs expects run ids separated by commas, got "${values.runs}"`);
    if (values.baseline !== undefined && !ids.includes(values.baseline.trim())) throw new UsageError(`spade compare: --baseline expects one of the compared runs (${ids.join(", ")}), got "${values.baseline}"`);
    if (values.table !== undefined && !(tableFormats as readonly string[]).includes(values.table)) throw new UsageError(`spade compare: --table expects ${tableFormats.join(", ")}, got "${values.table}"`);
    const db = openDatabase(values.db, { readonly: true });
    let comparison;
    try {
      comparison = compareRuns(db, ids.map(Number), { baselineRunId: values.baseline === undefined ? null : Number(values.baseline) });
    } catch (error) {
      throw new UsageError(`spade compare: ${(error as Error).message}`);
    } finally {
      db.close();
    }
    if (values.json) {
      process.stdout.write(JSON.stringify(comparison) + "\n");
      return 0;
    }
    if (values.table !== undefined) {
      process.stdout.write(renderComparisonTable(comparison.table, values.table as TableFormat));
      // The table is still printed (a script reads its shape); a reader learns why it is empty.
      if (comparison.table.rows.every((row) => row.cells.every((cell) => cell === null))) {
        process.stderr.write(`note: runs ${ids.join(", ")} have no held-out scores, so the table has no scores; evaluate an adapter of each run (spade eval --suite <file> --config <run.json> --adapter <id>) or give the run a "training.eval" suite\n`);
      }
      return 0;
    }
    process.stdout.write(formatComparison(comparison));
    return 0;
  },
};
