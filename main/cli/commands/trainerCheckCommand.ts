import { describeTrainerBlas, type TrainerEnvironment } from "../../../shared/trainerEnvironment.js";
import { checkTrainerEnvironment } from "../../training/checkTrainerEnvironment.js";
import type { Command } from "../Command.js";
import { parseCommandArgs } from "../parseCommandArgs.js";
import { UsageError } from "../UsageError.js";

export const trainerCheckCommand: Command = {
  name: "trainer check",
  usage: "trainer check [--python <path>] [--trainer gguf|hf] [--model <file.gguf>] [--device <auto|cpu|cuda|...>] [--json]",
  summary: "show the trainer's Python: interpreter, torch, device, free memory, what it can train (exit 0 ready, 1 not)",
  async run(argv) {
    const { values } = parseCommandArgs(
      "trainer check",
      argv,
      {
        python: { type: "string", valueName: "path", help: "The interpreter to check (as training.python).", defaultText: "SPADE_PYTHON, ~/.spade-workbench/python, a python3 on PATH with torch, /usr/bin/python3" },
        trainer: { type: "string", valueName: "gguf|hf", help: "The built-in trainer to check for.", defaultText: "gguf" },
        model: { type: "string", valueName: "file.gguf", help: "A GGUF base model: can the gguf trainer train it (architecture, tensor types)?" },
        device: { type: "string", valueName: "auto|cpu|cuda|...", help: "The PyTorch device the trainer would use.", defaultText: "auto" },
        json: { type: "boolean", help: "Print the report as JSON." },
      },
      false,
    );
    const trainer = values.trainer ?? "gguf";
    if (trainer !== "gguf" && trainer !== "hf") throw new UsageError(`spade trainer check: --trainer must be "gguf" or "hf", got ${JSON.stringify(trainer)}`);
    const report = await checkTrainerEnvironment({ python: values.python ?? null, trainer, model: values.model ?? null, device: values.device });
    process.stdout.write(values.json ? JSON.stringify(report) + "\n" : formatTrainerEnvironment(report));
    return report.problems.length === 0 ? 0 : 1;
  },
};

/** The report as text, one fact a line. */
export function formatTrainerEnvironment(report: TrainerEnvironment): string {
  const gib = (bytes: number | null) => (bytes === null ? "unknown" : `${(bytes / 2 ** 30).toFixed(1)} GiB`);
  const version = (name: string) => report.packages[name] ?? "not installed";
  const lines = [
    `python: ${report.executable ?? report.python} (${report.source}${report.pythonVersion ? `, Python ${report.pythonVersion}` : ""})`,
    `torch: ${version("torch")}, numpy: ${version("numpy")}, transformers: ${version("transformers")}, peft: ${version("peft")}, gguf: ${version("gguf")}`,
    `device: ${report.device.kind ?? "none"}${report.device.name ? ` (${report.device.name})` : ""}, free memory ${gib(report.device.freeBytes)} of ${gib(report.device.totalBytes)}`,
  ];
  if (report.packages.torch) lines.push(`blas: ${describeTrainerBlas(report.blas)}`);
  if (report.gguf) lines.push(`gguf trainer: architectures ${report.gguf.architectures.join(", ")}; tensor types ${report.gguf.tensorTypes.join(", ")}`);
  if (report.model) lines.push(`model ${report.model.path}: ${report.model.trainable ? `trains (${report.model.architecture}, ${report.model.tensorTypes?.join(", ")})` : report.model.reason}`);
  lines.push(report.problems.length === 0 ? `ready: the ${report.trainer} trainer can run` : `not ready:\n${report.problems.map((problem) => `  - ${problem}`).join("\n")}`);
  return lines.join("\n") + "\n";
}
