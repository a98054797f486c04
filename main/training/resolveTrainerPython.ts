import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { TrainerPythonSource } from "../../shared/trainerEnvironment.js";


export interface TrainerPythonChoice {
  python: string;
  source: TrainerPythonSource;
}

export interface TrainerPythonProbe {
  /** training.python of the run (used as given). Defaults to none. */
  configured?: string | null;
  /** The environment (SPADE_PYTHON, HOME). Defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Whether a file exists. Defaults to `fs.existsSync`. */
  exists?: (path: string) => boolean;
  /** Whether an interpreter imports torch. Defaults to running it (`pythonHasTorch`). */
  importsTorch?: (python: string) => boolean;
  /** Defaults to `process.platform`. */
  platform?: NodeJS.Platform;
}

/** The environment `spade trainer setup` creates: `~/.spade-workbench/python` (a venv). */
export function managedPythonDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.HOME || env.USERPROFILE || homedir(), ".spade-workbench", "python");
}

/** The interpreter inside a venv folder. */
export function venvPython(dir: string, platform: NodeJS.Platform = process.platform): string {
  return platform === "win32" ? join(dir, "Scripts", "python.exe") : join(dir, "bin", "python");
}

/**
 * The interpreter of the built-in trainers, in the documented order: `training.python`,
 * `SPADE_PYTHON`, the managed environment `~/.spade-workbench/python` when it exists, a `python3`
 * on PATH that imports torch, then Debian's `/usr/bin/python3` (where `apt-get install
 * python3-torch` puts torch). When none of the last two imports torch, `python3` is returned
 * (source "fallback"): the trainer check then says what is missing.
 */
export function chooseTrainerPython(probe: TrainerPythonProbe = {}): TrainerPythonChoice {
  const env = probe.env ?? process.env;
  const exists = probe.exists ?? existsSync;
  const importsTorch = probe.importsTorch ?? pythonHasTorch;
  const platform = probe.platform ?? process.platform;
  if (probe.configured) return { python: probe.configured, source: "training.python" };
  if (env.SPADE_PYTHON) return { python: env.SPADE_PYTHON, source: "SPADE_PYTHON" };
  const managed = venvPython(managedPythonDir(env), platform);
  if (exists(managed)) return { python: managed, source: "managed" };
  const onPath = platform === "win32" ? "python" : "python3";
  if (importsTorch(onPath)) return { python: onPath, source: "PATH" };
  const debian = "/usr/bin/python3";
  if (platform === "linux" && exists(debian) && importsTorch(debian)) return { python: debian, source: "debian" };
  return { python: onPath, source: "fallback" };
}

const cached = new Map<string, TrainerPythonChoice>();

/** `chooseTrainerPython` for this process (the probes run once per configured value and SPADE_PYTHON). */
export function resolveTrainerPython(configured: string | null = null): string {
  const key = `${configured ?? ""}\0${process.env.SPADE_PYTHON ?? ""}`;
  let choice = cached.get(key);
  if (!choice) cached.set(key, (choice = chooseTrainerPython({ configured })));
  return choice.python;
}

/** Whether an interpreter imports torch (tests skip the trainer tests with a reason when it does not). */
export function pythonHasTorch(python: string): boolean {
  return spawnSync(python, ["-c", "import torch"], { stdio: "ignore", timeout: 60_000 }).status === 0;
}
