import { join } from "node:path";
import type { TrainingRole } from "../../shared/trainingConfig.js";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { getRun, listRuns } from "../store/queries/runs.js";
import { listDesignerIterations } from "../store/queries/trainingBatch.js";
import { buildTrainingBatch } from "./buildTrainingBatch.js";
import { ExportRunNotFoundError } from "./exportTrainingData.js";
import type { WrittenFile } from "./JsonlWriter.js";
import { emptyLeftOut, type TrainingBatch } from "./TrainingBatch.js";
import { writeTrainingBatch } from "./writeTrainingBatch.js";

export interface BatchExportOptions {
  outDir: string;
  /** One run's data. Defaults to every run of the workspace (each run's designer rewards centred within that run). */
  runId?: number;
  /** Defaults to both roles. */
  roles?: readonly TrainingRole[];
  includeHinted?: boolean;
  includeErrored?: boolean;
  /** Recorded in messages. Defaults to the database's file name. */
  dbLabel?: string;
}

/**
 * `spade export --format batch`: the token-exact training batch of every stored iteration, as a
 * training round builds it, in `batch.jsonl`. Calls whose tokens were not recorded (e.g. an
 * OpenAI-compatible server without token ids) are kept as rows with `"tokens": null` and a
 * `"missing"` reason, so the export says so per row.
 */
export function exportTrainingBatch(db: ReadonlyDb, options: BatchExportOptions): { file: WrittenFile; header: TrainingBatch["header"]; untokenised: number } {
  if (options.runId !== undefined && !getRun(db, options.runId)) throw new ExportRunNotFoundError(`run ${options.runId} does not exist in ${options.dbLabel ?? db.name}`);
  const runs = options.runId === undefined ? listRuns(db).map((run) => run.id).sort((a, b) => a - b) : [options.runId];
  const total: TrainingBatch = { header: { format: "spade-batch", version: 1, roles: { agent: 0, designer: 0 }, "left out": emptyLeftOut() }, lines: [], untokenised: [] };
  for (const runId of runs) {
    const batch = buildTrainingBatch(db, { runId, fromIteration: 0, toIteration: Number.MAX_SAFE_INTEGER, designerRegenerations: listDesignerIterations(db, runId), roles: options.roles, includeHinted: options.includeHinted, includeErrored: options.includeErrored, keepUntokenised: true });
    total.lines.push(...batch.lines);
    total.untokenised.push(...batch.untokenised);
    for (const role of ["agent", "designer"] as const) total.header.roles[role] += batch.header.roles[role];
    for (const [key, value] of Object.entries(batch.header["left out"])) total.header["left out"][key as keyof TrainingBatch["header"]["left out"]] += value;
  }
  return { file: writeTrainingBatch(join(options.outDir, "batch.jsonl"), total), header: total.header, untokenised: total.untokenised.length };
}
