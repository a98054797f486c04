// Models, adapters and held-out evaluation results.

export interface ModelFile {
  name: string;
  path: string;
  bytes: number;
  /** Architecture, size and fit, when read (listModels reads them; null when the file cannot be read, see insightsError). */
  insights?: ModelInsights | null;
  insightsError?: string;
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

/** What a GGUF file is and whether it fits this machine (node-llama-cpp's GgufInsights). */
export interface ModelInsights {
  /** `general.architecture`, e.g. "llama", "qwen3". */
  architecture: string;
  /** `general.name` when the file has one. */
  name: string | null;
  /** Total parameters, e.g. 8.03e9. */
  parameters: number;
  /** The file type, e.g. "Q4_K_M", "F16"; null when the file does not say. */
  quantization: string | null;
  /** The context length the model was trained with, in tokens; null when unknown. */
  contextLength: number | null;
  totalLayers: number;
  /** The estimate for a default ("auto") load on this machine. */
  fit: ModelFit;
}

export interface ModelFit {
  /** "gpu": every layer in GPU memory; "partial": some layers; "cpu": runs from RAM; "no": too big for this machine. */
  verdict: "gpu" | "partial" | "cpu" | "no";
  /** One sentence for the Models page. */
  summary: string;
  gpu: string | null;
  gpuLayers: number;
  /** The context size node-llama-cpp would pick ("auto"), in tokens. */
  contextSize: number;
  ramBytes: number;
  vramBytes: number;
  machineRamBytes: number;
  machineVramBytes: number;
}
