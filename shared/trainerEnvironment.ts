/** Where the trainer's interpreter came from (README "Training inside the run": the discovery order). */
export type TrainerPythonSource = "training.python" | "SPADE_PYTHON" | "managed" | "PATH" | "debian" | "fallback";

/** What `spade trainer check` (and the Settings page) report about the trainer's Python. */
export interface TrainerEnvironment {
  /** The interpreter as it was chosen (a command or a path). */
  python: string;
  source: TrainerPythonSource;
  /** The interpreter's own path (sys.executable); null when it did not run. */
  executable: string | null;
  pythonVersion: string | null;
  /** Version per package (torch, numpy, transformers, peft, gguf); null: does not import. */
  packages: Record<string, string | null>;
  device: { name: string | null; kind: string | null; freeBytes: number | null; totalBytes: number | null };
  trainer: "gguf" | "hf";
  /** What the gguf trainer reads with this interpreter; null when the check could not get that far. */
  gguf: { architectures: string[]; tensorTypes: string[] } | null;
  /** The model file checked, when one was given. */
  model: { path: string; architecture?: string; tensorTypes?: string[]; trainable: boolean | null; reason: string | null } | null;
  /** What stops the trainer, each with its fix; empty when it can train. */
  problems: string[];
}
