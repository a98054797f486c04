import { existsSync } from "node:fs";
import { compareRuns } from "../../experiments/compareRuns.js";
import { openDatabase } from "../../store/openDatabase.js";
import type { Command } from "../Command.js";
import { parseCommandArgs } from "../parseCommandArgs.js";
import { UsageError } from "../UsageError.js";

export const compareCommand: Command = {
  name: "compare",
  usage: "compare --db <path> --runs <id>,<id>[,...] [--json]",
  summary: "line up runs' loop metrics, held-out scores and config differences",
  async run(argv) {
    const { values } = parseCommandArgs("compare", argv, { db: { type: "string", valueName: "path", help: "Workspace database (SQLite file). (required)" }, runs: { type: "string", valueName: "id,id[,...]", help: "The runs to line up. (required)" }, json: { type: "boolean", help: "Print JSON instead of text." } }, false);
    if (!values.db) throw new UsageError("spade compare: --db <path> is required");
    if (!values.runs) throw new UsageError("spade compare: --runs <id>,<id> is required");
    if (!existsSync(values.db)) throw new UsageError(`spade compare: ${values.db} does not exist`);
    const ids = values.runs.split(",").map((part) => part.trim());
    for (const id of ids) if (!/^\d+$/.test(id)) throw new UsageError(`spade compare: --runs expects run ids separated by commas, got "${values.runs}"`);
    const db = openDatabase(values.db, { readonly: true });
    let comparison;
    try {
      comparison = compareRuns(db, ids.map(Number));
    } catch (error) {
      throw new UsageError(`spade compare: ${(error as Error).message}`);
    } finally {
      db.close();
    }
    if (values.json) {
      process.stdout.write(JSON.stringify(comparison) + "\n");
      return 0;
    }
    const fmt = (value: number | null) => (value === null ? "-" : value.toFixed(3));
    for (const run of comparison.runs) {
      const s = run.summary;
      process.stdout.write(
        `run ${run.id}${run.name ? ` "${run.name}"` : ""} (${run.ablations.join(", ") || "SPADE recipe"}): ${s.iterations} iterations, validity ${fmt(s.validityRate)}, regret ${fmt(s.meanRegret)}, win rate ${fmt(s.meanWinRate)}, designer reward ${fmt(s.designerReward)}, novelty ${fmt(s.noveltyRate)}, diversity (Vendi / n) ${fmt(s.vendiPerN)}\n`,
      );
    }
    for (const diff of comparison.configDiff) process.stdout.write(`  ${diff.key}: ${diff.values.map((v) => JSON.stringify(v) ?? "unset").join(" | ")}\n`);
    return 0;
  },
};
