// Models, adapters and held-out evaluation results.

export interface ModelFile {
  name: string;
  path: string;
  bytes: number;
}

export interface AdapterView {
  id: number;
  runId: number | null;
  /** The adapter it was trained from; null when trained on the base model. */
  parentId: number | null;
  name: string;
  path: string | null;
  status: string | null;
  /** SHA-256 of the base model file it was trained on, when recorded. */
  baseModelSha256: string | null;
  metrics: Record<string, unknown> | null;
  createdAt: number;
}

export interface AdapterDetail extends AdapterView {
  /** The training data manifest (format, counts, filters, file hashes). */
  manifest: Record<string, unknown> | null;
  trainerCommand: string | null;
  /** The trainer's log (its tail when long). */
  log: string | null;
  /** Ancestors, parent first; the last one was trained on the base model. */
  lineage: AdapterView[];
  /** Adapters trained from this one. */
  childIds: number[];
  evalResults: EvalResultView[];
}

export interface EvalResultView {
  id: number;
  /** Null for the base model. */
  adapterId: number | null;
  suite: string;
  n: number;
  correct: number | null;
  accuracy: number | null;
  meanReturn: number | null;
  winRate: number | null;
  createdAt: number;
}
