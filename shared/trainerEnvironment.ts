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
  /** The OpenBLAS under the interpreter's torch (resources/trainers/runtime/spade_blas.py); null where torch's BLAS is not OpenBLAS, or torch did not import. */
  blas: TrainerBlas | null;
  /** What stops the trainer, each with its fix; empty when it can train. */
  problems: string[];
}

/** OpenBLAS as the trainer runs it. */
export interface TrainerBlas {
  /** The kernels it runs ("SkylakeX", "Haswell", ...). */
  core: string;
  /** Its threads as the check found them (the trainer gives it training.threads where that is set). */
  threads: number;
  /** Its build line ("OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ..."). */
  config: string;
  /** OPENBLAS_CORETYPE in the trainer's environment, set by the user or by the trainer; null: unset. */
  coretype: string | null;
  /** The core OpenBLAS picked alone on this CPU, where the trainer replaced it (a CPU newer than the library); null: none replaced. */
  fallback: string | null;
}

/** The BLAS line of `spade trainer check` and the Settings page. */
export function describeTrainerBlas(blas: TrainerBlas | null): string {
  if (!blas) return "not OpenBLAS (PyTorch's own BLAS or MKL), or torch did not import";
  const library = blas.config.split(" ").slice(0, 2).join(" ") || "OpenBLAS";
  const replaced = blas.fallback ? ` (alone it picks ${blas.fallback} on this CPU, newer than the library: the trainer sets OPENBLAS_CORETYPE=${blas.coretype})` : "";
  return `${library}, ${blas.core} kernels${replaced}`;
}
