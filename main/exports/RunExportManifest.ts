/** `manifest.json` of a metrics or prompt export (`spade export --format metrics-csv | tensorboard | verl`). */
export interface RunExportManifest {
  format: RunExportFormat;
  createdAt: string;
  /** The workspace database read. */
  db: string;
  /** The run exported, or null for every run of the workspace. */
  run: number | null;
  counts: Record<string, number>;
  /** What a consumer must know (e.g. metrics that are not scalars and were left out). */
  notes?: string[];
  /** Paths relative to the manifest's folder. */
  files: Array<{ path: string; bytes: number; sha256: string }>;
}

/** Exports of a run that are not training JSONL: its metrics for other tools, and verl prompts. */
export const runExportFormats = ["metrics-csv", "tensorboard", "verl"] as const;
export type RunExportFormat = (typeof runExportFormats)[number];

export function isRunExportFormat(value: string): value is RunExportFormat {
  return (runExportFormats as readonly string[]).includes(value);
}
