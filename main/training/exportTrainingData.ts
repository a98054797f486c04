import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { getRun } from "../store/queries/runs.js";
import { listDesignerAttempts, listPlayedEnvironments } from "../store/queries/trainingQueries.js";
import { buildArtGroups } from "./buildArtGroups.js";
import { buildDesignerLines } from "./buildDesignerLines.js";
import { buildGrpoGroups } from "./buildGrpoGroups.js";
import { buildKtoLines } from "./buildKtoLines.js";
import { buildSftLines } from "./buildSftLines.js";
import type { ExportFormat } from "./exportFormats.js";
import type { ExportManifest } from "./ExportManifest.js";
import type { ExportResult } from "./ExportResult.js";
import { JsonlWriter } from "./JsonlWriter.js";
import { loadPlayGroup } from "./loadPlayGroup.js";
import type { StoredPlayGroup } from "./StoredPlayGroup.js";

export interface ExportOptions {
  /** The formats to write, one `<format>.jsonl` each. */
  formats: readonly ExportFormat[];
  /** The folder written (created when missing; files of the same names are replaced). */
  outDir: string;
  /** One run's data. Defaults to every run of the workspace. */
  runId?: number;
  /** Hinted plays are trained on too. Defaults to false (the hint is privileged information). */
  includeHinted?: boolean;
  /** Plays that ended in an error are kept. Defaults to false. */
  includeErrored?: boolean;
  /** SFT: best plays kept per environment. Defaults to 1. */
  sftBestPerGroup?: number;
  /** SFT: a kept play must return more than this. Defaults to 0. */
  sftMinReturn?: number;
  /** Recorded in the manifest as the source. Defaults to the database's file name. */
  dbLabel?: string;
}

/** The run asked for does not exist in the workspace. */
export class ExportRunNotFoundError extends Error {
  override readonly name = "ExportRunNotFoundError";
}

const playBuilders: Record<Exclude<ExportFormat, "designer">, (groups: StoredPlayGroup[], options: ExportOptions) => ExportResult> = {
  grpo: (groups, o) => buildGrpoGroups(groups, o),
  "trl-sft": (groups, o) => buildSftLines(groups, { ...o, bestPerGroup: o.sftBestPerGroup, minReturn: o.sftMinReturn }),
  "trl-kto": (groups, o) => buildKtoLines(groups, o),
  art: (groups, o) => buildArtGroups(groups, o),
};

/**
 * Writes training data from the workspace: one JSONL file per format and a `manifest.json` with the
 * counts, the filters and each file's sha256. Environments are read and written one at a time, so
 * memory stays flat however long the run was.
 */
export function exportTrainingData(db: ReadonlyDb, options: ExportOptions): ExportManifest {
  if (options.formats.length === 0) throw new TypeError("exportTrainingData: formats is empty");
  if (options.runId !== undefined && !getRun(db, options.runId)) {
    throw new ExportRunNotFoundError(`run ${options.runId} does not exist in ${options.dbLabel ?? db.name}`);
  }
  mkdirSync(options.outDir, { recursive: true });
  const counts: ExportManifest["counts"] = {};
  const files: ExportManifest["files"] = [];
  const writers = new Map<ExportFormat, JsonlWriter>();
  for (const format of options.formats) writers.set(format, new JsonlWriter(join(options.outDir, `${format}.jsonl`)));

  try {
    const playFormats = options.formats.filter((format): format is Exclude<ExportFormat, "designer"> => format !== "designer");
    if (playFormats.length > 0) {
      for (const environment of listPlayedEnvironments(db, options.runId)) {
        const group = loadPlayGroup(db, environment);
        for (const format of playFormats) {
          const result = playBuilders[format]([group], options);
          for (const line of result.lines) writers.get(format)!.write(line);
          counts[format] = addCounts(counts[format] ?? {}, result.counts);
        }
      }
      for (const format of playFormats) counts[format] ??= playBuilders[format]([], options).counts;
    }
    if (options.formats.includes("designer")) {
      const result = buildDesignerLines(listDesignerAttempts(db, options.runId));
      for (const line of result.lines) writers.get("designer")!.write(line);
      counts.designer = result.counts;
    }
  } finally {
    for (const [format, writer] of writers) {
      const written = writer.close();
      files.push({ path: basename(written.path), format, lines: written.lines, bytes: written.bytes, sha256: written.sha256 });
    }
  }
  const manifest: ExportManifest = {
    format: options.formats.join("+"),
    formats: [...options.formats],
    createdAt: new Date().toISOString(),
    db: options.dbLabel ?? db.name,
    run: options.runId ?? null,
    filters: {
      includeHinted: options.includeHinted ?? false,
      includeErrored: options.includeErrored ?? false,
      sftBestPerGroup: options.sftBestPerGroup ?? 1,
      sftMinReturn: options.sftMinReturn ?? 0,
    },
    counts,
    ...notesFor(counts),
    files,
  };
  writeFileSync(join(options.outDir, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
  return manifest;
}

/** Notes for the manifest about rows a consumer cannot use as they are. */
function notesFor(counts: ExportManifest["counts"]): Pick<ExportManifest, "notes"> {
  const notes: string[] = [];
  const missing = counts.art?.choicesWithoutTokenIds ?? 0;
  if (missing > 0) {
    notes.push(
      `art.jsonl: ${missing} assistant choice${missing === 1 ? " has" : "s have"} no token ids (played on a server that did not return them): ` +
        `ART retokenises those only with allow_training_without_logprobs=True in art.dev.TrainConfig`,
    );
  }
  return notes.length > 0 ? { notes } : {};
}

function addCounts(total: Record<string, number>, more: Record<string, number>): Record<string, number> {
  const sum = { ...total };
  for (const [key, value] of Object.entries(more)) sum[key] = (sum[key] ?? 0) + value;
  return sum;
}
