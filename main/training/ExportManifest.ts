import type { ExportFormat } from "./exportFormats.js";

/** `manifest.json` of an export folder: what was exported from where, with which filters. */
export interface ExportManifest {
  /** The format, or the formats joined by "+" when several were written together. */
  format: string;
  formats: ExportFormat[];
  createdAt: string;
  /** The workspace database read. */
  db: string;
  /** The run exported, or null for every run of the workspace. */
  run: number | null;
  filters: {
    includeHinted: boolean;
    includeErrored: boolean;
    sftBestPerGroup: number;
    sftMinReturn: number;
  };
  /** Per format: lines, groups, and what was dropped or excluded and why. */
  counts: Partial<Record<ExportFormat, Record<string, number>>>;
  /** What a consumer of these files must know (e.g. ART rows without token ids). Absent when nothing. */
  notes?: string[];
  /** File names are relative to the manifest's folder. */
  files: Array<{ path: string; format: ExportFormat; lines: number; bytes: number; sha256: string }>;
}
