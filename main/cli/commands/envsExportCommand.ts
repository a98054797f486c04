import { existsSync, writeFileSync } from "node:fs";
import { envExportFilters, envPackageFormats, isEnvPackageFormat, type EnvExportFilter } from "../../../shared/envExport.js";
import { selectDistinctRunEnvironments } from "../../experiments/selectRunEnvironments.js";
import { exportEnvironmentPackages, NoEnvironmentsToExportError } from "../../exports/packages/exportEnvironmentPackages.js";
import { selectPackaged, selectPackagedEnvironments } from "../../exports/packages/selectPackagedEnvironments.js";
import { openDatabase } from "../../store/openDatabase.js";
import { getEnvSet } from "../../store/queries/envSets.js";
import { getRun } from "../../store/queries/runs.js";
import type { Command } from "../Command.js";
import { parseCommandArgs, parseIntegerOption } from "../parseCommandArgs.js";
import { UsageError } from "../UsageError.js";

export const envsExportCommand: Command = {
  name: "envs export",
  usage: `envs export --db <path> [--run <id> | --set <name>] [--filter valid|memory|pinned] [--format ${envPackageFormats.join("|")}] --out <file.jsonl | dir>`,
  summary: "write environments as JSONL, one per line, or as packages for another RL stack (--format)",
  async run(argv) {
    const { values } = parseCommandArgs("envs export", argv, {
      db: { type: "string", valueName: "path", help: "Workspace database (SQLite file). (required)" },
      run: { type: "string", valueName: "id", help: "Only this run's environments.", defaultText: "every run" },
      set: { type: "string", valueName: "name", help: "The members of this environment set instead of a run's environments." },
      filter: { type: "string", valueName: "valid|memory|pinned", help: "Which environments to write.", defaultText: "valid" },
      format: { type: "string", valueName: envPackageFormats.join("|"), help: "Write one package per environment for this stack into the --out folder, with manifest.json.", defaultText: "JSONL" },
      out: { type: "string", valueName: "file.jsonl|dir", help: "The file (JSONL) or folder (--format) to write. (required)" },
    }, false);
    if (!values.db) throw new UsageError("spade envs export: --db <path> is required");
    if (!values.out) throw new UsageError(`spade envs export: --out <${values.format ? "dir" : "file.jsonl"}> is required`);
    if (!existsSync(values.db)) throw new UsageError(`spade envs export: ${values.db} does not exist`);
    const filter = (values.filter ?? "valid") as EnvExportFilter;
    if (!envExportFilters.includes(filter)) throw new UsageError(`spade envs export: --filter expects one of ${envExportFilters.join(", ")}, got "${values.filter}"`);
    if (values.format !== undefined && !isEnvPackageFormat(values.format)) throw new UsageError(`spade envs export: --format expects one of ${envPackageFormats.join(", ")}, got "${values.format}"`);
    if (values.set !== undefined && values.run !== undefined) throw new UsageError("spade envs export: give --run <id> or --set <name>, not both");
    if (values.set !== undefined && values.filter !== undefined) throw new UsageError("spade envs export: --filter selects a run's environments; a --set is exported whole");
    const runId = parseIntegerOption("envs export", "run", values.run);
    const db = openDatabase(values.db, { readonly: true });
    try {
      if (runId !== undefined && !getRun(db, runId)) throw new UsageError(`spade envs export: run ${runId} does not exist in ${values.db}`);
      if (values.set !== undefined && !getEnvSet(db, values.set)) throw new UsageError(`spade envs export: environment set "${values.set}" does not exist in ${values.db}`);
      if (values.format !== undefined && isEnvPackageFormat(values.format)) {
        const { environments, identical } = selectPackaged(db, { runId, filter, set: values.set });
        const selection = values.set !== undefined ? `set:${values.set}` : `${runId === undefined ? "workspace" : `run:${runId}`} (${filter})`;
        try {
          const manifest = exportEnvironmentPackages(environments, { format: values.format, outDir: values.out, dbLabel: values.db, selection });
          const kind = values.format === "game-files" ? "game" : "package";
          const count = (n: number) => `${n} ${kind}${n === 1 ? "" : "s"}`;
          const earlier = manifest.packages.length - environments.length;
          process.stderr.write(`wrote ${environments.length} ${values.format} ${kind}${environments.length === 1 ? "" : "s"} to ${values.out}${earlier > 0 ? ` (its manifest keeps ${earlier} earlier: ${count(manifest.packages.length)} in all)` : ""}\n`);
          if (identical > 0) process.stderr.write(identicalNote(identical));
        } catch (error) {
          if (error instanceof NoEnvironmentsToExportError) throw new UsageError(`spade envs export: ${error.message}`);
          throw error;
        }
        return 0;
      }
      const { lines, identical } = values.set !== undefined ? { lines: selectPackagedEnvironments(db, { set: values.set }).map(({ runId: _run, iteration: _iteration, maxTurns: _turns, ...line }) => line), identical: 0 } : selectDistinctRunEnvironments(db, { runId, filter });
      writeFileSync(values.out, lines.map((line) => JSON.stringify(line) + "\n").join(""));
      process.stderr.write(`wrote ${lines.length} environment${lines.length === 1 ? "" : "s"} to ${values.out}\n`);
      if (identical > 0) process.stderr.write(identicalNote(identical));
    } finally {
      db.close();
    }
    return 0;
  },
};

/** Environments whose code is identical to one exported are written once: said, not dropped silently. */
function identicalNote(identical: number): string {
  return `note: ${identical} valid ${identical === 1 ? "environment was" : "environments were"} left out: ${identical === 1 ? "its code is" : "their code is"} identical to one exported\n`;
}
