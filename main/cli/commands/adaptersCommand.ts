import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { adapterLineage } from "../../adapters/adapterLineage.js";
import { registerAdapter } from "../../adapters/registerAdapter.js";
import { resolveAdapterRef } from "../../adapters/resolveAdapterRef.js";
import { UnknownAdapterError } from "../../adapters/UnknownAdapterError.js";
import { AdapterMismatchError } from "../../llm/gguf/AdapterMismatchError.js";
import { GgufFormatError } from "../../llm/gguf/GgufFormatError.js";
import { openDatabase } from "../../store/openDatabase.js";
import { listAdapters, type Adapter } from "../../store/queries/adapters.js";
import { listEvalResults } from "../../store/queries/evalResults.js";
import type { Command } from "../Command.js";
import { parseCommandArgs, parseIntegerOption } from "../parseCommandArgs.js";
import { UsageError } from "../UsageError.js";

const usage = "adapters list --db <path> [--run <id>] [--json] | adapters show <id|name> --db <path> [--json] | adapters add <file.gguf> --db <path> --base <model.gguf> [--run <id>] [--parent <id|name>] [--name <name>] [--json]";

export const adaptersCommand: Command = {
  name: "adapters",
  usage,
  summary: "the adapter registry: list, show (lineage and scores), add an adapter trained elsewhere",
  async run(argv) {
    const { values, positionals } = parseCommandArgs("adapters", argv, {
      db: { type: "string", valueName: "path", help: "Workspace database (SQLite file). (required)" },
      run: { type: "string", valueName: "id", help: "list: only this run's adapters; add: the run it was trained from." },
      json: { type: "boolean", help: "Print JSON instead of text." },
      base: { type: "string", valueName: "model.gguf", help: "add: the base model the adapter was trained on (required for add)." },
      parent: { type: "string", valueName: "id|name", help: "add: the adapter it was trained from.", defaultText: "none (trained from the base model)" },
      name: { type: "string", valueName: "name", help: "add: the registry name.", defaultText: "the next free adapter name" },
    });
    const [verb, target, ...extra] = positionals;
    if (!verb || !["list", "show", "add"].includes(verb) || extra.length > 0) throw new UsageError(`spade adapters: usage: spade ${usage}`);
    if (!values.db) throw new UsageError("spade adapters: --db <path> is required");
    if (verb !== "add" && !existsSync(values.db)) throw new UsageError(`spade adapters: ${values.db} does not exist`);
    const runId = parseIntegerOption("adapters", "run", values.run);
    const db = openDatabase(values.db);
    const out = (text: string) => process.stdout.write(text + "\n");
    try {
      if (verb === "list") {
        const adapters = listAdapters(db, runId);
        if (values.json) out(JSON.stringify({ adapters: adapters.map(summary) }));
        else if (adapters.length === 0) out("no adapters registered");
        else for (const adapter of adapters) out(line(adapter));
        return 0;
      }
      if (!target) throw new UsageError(`spade adapters ${verb}: ${verb === "show" ? "which adapter (id or name)?" : "which file (a GGUF LoRA)?"}`);
      if (verb === "show") {
        const { adapter } = resolveAdapterRef(db, target);
        if (!adapter) throw new UsageError(`spade adapters show: ${target} is a file, not a registered adapter`);
        const lineage = adapterLineage(db, adapter.id);
        const evaluations = listEvalResults(db, { adapterId: adapter.id }).map(({ items: _items, ...result }) => result);
        if (values.json) {
          out(JSON.stringify({ adapter, lineage: lineage.map(summary), evaluations }));
        } else {
          out(line(adapter));
          out(`  lineage: ${lineage.map((a) => a.name).join(" <- ")} <- base model`);
          if (adapter.trainerCommand) out(`  trainer: ${adapter.trainerCommand}`);
          for (const result of evaluations) out(`  eval ${result.suite}: n ${result.n}, ${result.accuracy !== null ? `accuracy ${result.accuracy.toFixed(3)}` : `mean return ${result.meanReturn?.toFixed(3)}`}`);
        }
        return 0;
      }
      if (!values.base) throw new UsageError("spade adapters add: --base <model.gguf> is required (the adapter is checked against it)");
      const parent = values.parent ? resolveAdapterRef(db, values.parent).adapter : null;
      if (values.parent && !parent) throw new UsageError(`spade adapters add: --parent ${values.parent} is not a registered adapter`);
      const adapter = await registerAdapter(db, { sourcePath: resolve(target), baseModelPath: resolve(values.base), parentId: parent?.id ?? null, runId: runId ?? null, name: values.name });
      if (values.json) out(JSON.stringify({ adapter: summary(adapter) }));
      else out(`registered ${line(adapter)}`);
      return 0;
    } catch (error) {
      if (error instanceof UnknownAdapterError || error instanceof GgufFormatError || (error instanceof TypeError && verb === "add")) throw new UsageError(`spade adapters ${verb}: ${error.message}`);
      if (error instanceof AdapterMismatchError) throw new UsageError(`spade adapters ${verb}: refused: ${error.message}`);
      throw error;
    } finally {
      db.close();
    }
  },
};

function summary(adapter: Adapter) {
  return { id: adapter.id, name: adapter.name, path: adapter.path, runId: adapter.runId, parentId: adapter.parentId, status: adapter.status, createdAt: adapter.createdAt };
}

function line(adapter: Adapter): string {
  const parent = adapter.parentId === null ? "base model" : `adapter ${adapter.parentId}`;
  return `#${adapter.id} ${adapter.name} [${adapter.status}] from ${parent}${adapter.runId === null ? "" : `, run ${adapter.runId}`}: ${adapter.path}`;
}
