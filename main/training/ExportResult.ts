/** Lines of one export format and what was counted while making them (written to the manifest). */
export interface ExportResult<Line = unknown> {
  lines: Line[];
  counts: Record<string, number>;
}
