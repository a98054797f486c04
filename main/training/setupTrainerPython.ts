import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { managedPythonDir, venvPython } from "./resolveTrainerPython.js";
import { TrainerSetupError } from "./TrainerSetupError.js";

export interface SetupTrainerPythonOptions {
  /** The environment's folder. Defaults to `~/.spade-workbench/python` (where discovery looks). */
  dir?: string;
  /** The Python 3 the venv is made from. Defaults to "python3" ("python" on Windows). */
  basePython?: string;
  /** Also install transformers and PEFT (the hf trainer). Defaults to false. */
  hf?: boolean;
  /** pip's package index (a mirror). Defaults to pip's own (PyPI). */
  indexUrl?: string | null;
  /** Added to the environment of venv and pip (e.g. PIP_CONFIG_FILE). Defaults to none. */
  env?: Readonly<Record<string, string>>;
  /** Each output line of venv and pip. Defaults to none. */
  onLog?: (line: string) => void;
  /** Per step. Defaults to 1800000 ms (torch is a large download). */
  timeoutMs?: number;
}

export interface TrainerPythonSetup {
  dir: string;
  python: string;
  packages: string[];
  /** Whether the venv existed already (only pip ran). */
  reused: boolean;
}

/** What the gguf trainer needs, and what the hf trainer adds (resources/trainers/requirements.txt pins tested versions). */
export const trainerPackages = { gguf: ["torch", "numpy", "gguf"], hf: ["transformers>=4.51", "peft>=0.15", "safetensors"] };

/**
 * Creates (or updates) the managed trainer environment: a venv, then torch, NumPy and the gguf
 * package (plus transformers and PEFT with `hf`) through pip. Needs a machine that reaches the
 * package index; where it cannot, the TrainerSetupError says which step failed, what pip said,
 * and the ways round it.
 */
export async function setupTrainerPython(options: SetupTrainerPythonOptions = {}): Promise<TrainerPythonSetup> {
  const dir = options.dir ?? managedPythonDir();
  const python = venvPython(dir);
  const timeoutMs = options.timeoutMs ?? 1_800_000;
  const reused = existsSync(python);
  if (!reused) {
    const base = options.basePython ?? (process.platform === "win32" ? "python" : "python3");
    const venv = await runStep(base, ["-m", "venv", dir], timeoutMs, options);
    if (venv.code !== 0) {
      throw new TrainerSetupError(`spade trainer setup: could not create the venv ${dir} with ${base} (${venv.why}): ${tail(venv.log)}; install Python 3 with its venv module (Debian: apt-get install python3-venv) or pass --python <a Python 3>`, "venv", venv.log);
    }
  }
  const packages = [...trainerPackages.gguf, ...(options.hf ? trainerPackages.hf : [])];
  const index = options.indexUrl ? ["--index-url", options.indexUrl] : [];
  const pip = await runStep(python, ["-m", "pip", "install", "--disable-pip-version-check", "--retries", "1", "--timeout", "15", ...index, ...packages], timeoutMs, options);
  if (pip.code !== 0) {
    const where = options.indexUrl ?? "the Python package index (PyPI)";
    const unreachable = /connection|resolve|network|timed out|no matching distribution|could not find a version/i.test(pip.log);
    throw new TrainerSetupError(
      `spade trainer setup: pip could not install ${packages.join(", ")} into ${dir} from ${where} (${pip.why}): ${tail(pip.log)}` +
        (unreachable ? `; this machine does not seem to reach ${where}: pass --index-url <a mirror>, or install torch and NumPy another way (Debian: apt-get install python3-torch) and set training.python or SPADE_PYTHON to that interpreter` : ""),
      "pip",
      pip.log,
    );
  }
  return { dir, python, packages, reused };
}

interface StepResult {
  code: number | null;
  why: string;
  log: string;
}

function runStep(command: string, args: string[], timeoutMs: number, { env, onLog }: SetupTrainerPythonOptions): Promise<StepResult> {
  return new Promise((resolve) => {
    let log = "";
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PIP_NO_INPUT: "1", ...env } });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    const take = (chunk: Buffer) => {
      const text = chunk.toString();
      log = (log + text).slice(-100_000);
      for (const line of text.split("\n")) if (line.trim()) onLog?.(line);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, why: (error as NodeJS.ErrnoException).code === "ENOENT" ? `${command} was not found` : error.message, log });
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, why: signal ? `killed by ${signal} after ${timeoutMs} ms` : `exit code ${code}`, log });
    });
  });
}

/** The last meaningful lines of a step's output. */
function tail(log: string): string {
  const lines = log.split("\n").map((line) => line.trim()).filter(Boolean);
  return lines.length === 0 ? "(no output)" : lines.slice(-3).join(" / ");
}
