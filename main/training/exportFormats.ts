import { trainerFormats } from "../../shared/runConfig.js";

/** The formats `spade export` writes, one JSONL file each (`<format>.jsonl`). */
export const exportFormats = trainerFormats;
export type ExportFormat = (typeof exportFormats)[number];

export function isExportFormat(value: string): value is ExportFormat {
  return (exportFormats as readonly string[]).includes(value);
}
