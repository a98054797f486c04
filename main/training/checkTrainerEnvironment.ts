import { execFile } from "node:child_process";
import type { TrainerEnvironment } from "../../shared/trainerEnvironment.js";
import { resourcePath } from "../paths.js";
import { chooseTrainerPython, type TrainerPythonChoice } from "./resolveTrainerPython.js";

export interface CheckTrainerEnvironmentOptions {
  /** The interpreter; Defaults to `chooseTrainerPython({ configured: python })` (the documented order). */
  choice?: TrainerPythonChoice;
  /** training.python, when no `choice` is given. Defaults to none. */
  python?: string | null;
  /** Which built-in trainer will run. Defaults to "gguf". */
  trainer?: "gguf" | "hf";
  /** A GGUF base model to check ("gguf": its architecture and tensor types). Defaults to none. */
  model?: string | null;
  /** The PyTorch device the trainer will use. Defaults to "auto". */
  device?: string;
  /** Defaults to 120000 ms (a cold torch import on a slow disk). */
  timeoutMs?: number;
}

/**
 * Runs resources/trainers/check_env.py with the trainer's interpreter: its packages, device, free
 * memory, what the gguf trainer reads, and (given a model) whether that file trains. An
 * interpreter that does not start, or answers with something other than the report, is a problem
 * of the report, never a throw.
 */
export async function checkTrainerEnvironment(options: CheckTrainerEnvironmentOptions = {}): Promise<TrainerEnvironment> {
  const choice = options.choice ?? chooseTrainerPython({ configured: options.python ?? null });
  const trainer = options.trainer ?? "gguf";
  const args = [resourcePath("trainers", "check_env.py"), "--trainer", trainer, "--device", options.device ?? "auto"];
  if (options.model) args.push("--model", options.model);
  const empty: TrainerEnvironment = {
    ...choice,
    executable: null,
    pythonVersion: null,
    packages: {},
    device: { name: null, kind: null, freeBytes: null, totalBytes: null },
    trainer,
    gguf: null,
    model: null,
    blas: null,
    problems: [],
  };
  const { stdout, stderr, error } = await new Promise<{ stdout: string; stderr: string; error: Error | null }>((resolve) => {
    execFile(choice.python, args, { timeout: options.timeoutMs ?? 120_000, maxBuffer: 4 * 1024 * 1024, env: { ...process.env, PYTHONUNBUFFERED: "1" } }, (err, out, errText) => resolve({ stdout: String(out), stderr: String(errText), error: err }));
  });
  const line = stdout.trim().split("\n").at(-1) ?? "";
  const report = parseReport(line);
  if (!report) {
    const why = error && (error as NodeJS.ErrnoException).code === "ENOENT" ? "it does not exist" : `it answered ${JSON.stringify((stderr || stdout || error?.message || "nothing").trim().slice(-400))}`;
    return { ...empty, problems: [`cannot run ${choice.python} (${choice.source}): ${why}; run \`spade trainer setup\`, or set training.python / SPADE_PYTHON to a Python 3 that has torch and NumPy`] };
  }
  return {
    ...empty,
    executable: typeof report.python === "string" ? report.python : null,
    pythonVersion: typeof report.pythonVersion === "string" ? report.pythonVersion : null,
    packages: (report.packages as TrainerEnvironment["packages"]) ?? {},
    device: (report.device as TrainerEnvironment["device"]) ?? empty.device,
    gguf: (report.gguf as TrainerEnvironment["gguf"]) ?? null,
    model: (report.model as TrainerEnvironment["model"]) ?? null,
    blas: (report.blas as TrainerEnvironment["blas"]) ?? null,
    problems: Array.isArray(report.problems) ? report.problems.map(String) : [],
  };
}

function parseReport(line: string): Record<string, unknown> | null {
  if (!line.startsWith("{")) return null;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
}
