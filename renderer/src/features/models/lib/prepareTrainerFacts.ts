import { describeTrainerBlas, type TrainerEnvironment } from "../../../../../shared/trainerEnvironment.js";

export interface TrainerFacts {
  rows: Array<[label: string, value: string]>;
  ready: boolean;
  /** What stops the trainer, each with its fix. */
  problems: string[];
}

const gib = (bytes: number | null) => (bytes === null ? "unknown" : `${(bytes / 2 ** 30).toFixed(1)} GiB`);

/** The Settings page's trainer card: interpreter, packages, device and memory, what it trains. */
export function prepareTrainerFacts(report: TrainerEnvironment): TrainerFacts {
  const version = (name: string) => report.packages[name] ?? "not installed";
  const rows: TrainerFacts["rows"] = [
    ["Python", `${report.executable ?? report.python} (from ${report.source}${report.pythonVersion ? `, Python ${report.pythonVersion}` : ""})`],
    ["PyTorch", version("torch")],
    ["NumPy", version("numpy")],
    ["transformers / PEFT (hf trainer)", `${version("transformers")} / ${version("peft")}`],
    ["Device", report.device.kind ? `${report.device.kind}${report.device.name ? ` (${report.device.name})` : ""}` : "none"],
    ["Free memory", `${gib(report.device.freeBytes)} of ${gib(report.device.totalBytes)}`],
  ];
  if (report.packages.torch) rows.push(["BLAS (CPU)", describeTrainerBlas(report.blas)]);
  if (report.gguf) rows.push(["Trains (gguf trainer)", `${report.gguf.architectures.join(", ")} models; tensors ${report.gguf.tensorTypes.join(", ")}`]);
  return { rows, ready: report.problems.length === 0, problems: report.problems };
}
