// Adapters and held-out evaluation results.

export interface AdapterView {
  id: number;
  runId: number | null;
  parentId: number | null;
  name: string;
  path: string | null;
  status: string | null;
  metrics: Record<string, unknown> | null;
  createdAt: number;
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
