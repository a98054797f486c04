import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

let cached: string | null = null;

/**
 * The interpreter the built-in trainers run with when none is configured: Debian's
 * `/usr/bin/python3` when it exists and imports torch (where `apt-get install python3-torch`
 * puts it; a pyenv `python3` first on PATH often lacks it), else `python3` from PATH.
 */
export function resolveTrainerPython(): string {
  if (cached !== null) return cached;
  const debian = "/usr/bin/python3";
  const hasTorch = (python: string) => spawnSync(python, ["-c", "import torch"], { stdio: "ignore", timeout: 60_000 }).status === 0;
  cached = existsSync(debian) && hasTorch(debian) ? debian : "python3";
  return cached;
}

/** Whether an interpreter imports torch (tests skip the trainer tests with a reason when it does not). */
export function pythonHasTorch(python: string): boolean {
  return spawnSync(python, ["-c", "import torch"], { stdio: "ignore", timeout: 60_000 }).status === 0;
}
