import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { resourcePath } from "../paths.js";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import type { RunExportFormat, RunExportManifest } from "./RunExportManifest.js";
import { verlInteractionFile, verlPrompts, verlRewardFile } from "./verlPrompts.js";
import { metricsCsv, metricsTensorboard, runsToExport, type ExportFile } from "./writeRunMetrics.js";

export interface RunExportOptions {
  format: RunExportFormat;
  /** The folder written (created when missing; files of the same names are replaced). */
  outDir: string;
  /** One run. Defaults to every run of the workspace. */
  runId?: number;
  /** Recorded in the manifest as the source. Defaults to the database's file name. */
  dbLabel?: string;
}

/**
 * Writes a run's metrics for other tools (`metrics-csv`, `tensorboard`) or its environments as verl
 * prompts (`verl`), with a `manifest.json` listing every file with its sha256.
 */
export function exportRunData(db: ReadonlyDb, options: RunExportOptions): RunExportManifest {
  const runs = runsToExport(db, options.runId);
  if (options.runId !== undefined && runs.length === 0) throw new RunExportNotFoundError(`run ${options.runId} does not exist in ${options.dbLabel ?? db.name}`);
  let files: ExportFile[];
  let counts: Record<string, number>;
  const notes: string[] = [];
  if (options.format === "verl") {
    const result = verlPrompts(db, runs, readFileSync(resourcePath("exports", verlRewardFile), "utf8"), readFileSync(resourcePath("exports", verlInteractionFile), "utf8"));
    ({ files, counts } = result);
    notes.push(`verl: set data.train_files to verl.parquet and custom_reward_function.path to ${verlRewardFile} (name compute_score); it plays replies through SPADE_CLI (default "spade") in the workbench's sandbox`);
    notes.push(`verl multi-turn: set actor_rollout_ref.rollout.agent.agent_loop_config_path to spade_agent_loop.yaml (the rows' agent_name spade_agent) and actor_rollout_ref.rollout.multi_turn.interaction_config_path to spade_interaction.yaml (${verlInteractionFile} on PYTHONPATH); each rollout keeps one environment session open in the workbench's sandbox (spade env session), steps every reply and is rewarded with the game's return`);
  } else {
    const result = options.format === "metrics-csv" ? metricsCsv(db, runs) : metricsTensorboard(db, runs);
    ({ files, counts } = result);
    if (result.structured.length > 0) notes.push(`metrics that are not scalars were left out: ${result.structured.join(", ")}`);
  }
  mkdirSync(options.outDir, { recursive: true });
  for (const file of files) {
    mkdirSync(dirname(join(options.outDir, file.path)), { recursive: true });
    writeFileSync(join(options.outDir, file.path), file.bytes);
  }
  const manifest: RunExportManifest = {
    format: options.format,
    createdAt: new Date().toISOString(),
    db: options.dbLabel ?? db.name,
    run: options.runId ?? null,
    counts,
    ...(notes.length > 0 ? { notes } : {}),
    files: files.map((file) => ({ path: file.path, bytes: file.bytes.length, sha256: createHash("sha256").update(file.bytes).digest("hex") })),
  };
  writeFileSync(join(options.outDir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** The run asked for does not exist in the workspace. */
export class RunExportNotFoundError extends Error {
  override readonly name = "RunExportNotFoundError";
}
