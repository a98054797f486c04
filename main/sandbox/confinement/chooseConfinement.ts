import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { BubblewrapConfinement } from "./bubblewrapConfinement.js";
import type { Confinement } from "./Confinement.js";
import { NoConfinement } from "./noConfinement.js";
import { SandboxExecConfinement } from "./sandboxExecConfinement.js";

/** "auto" picks bubblewrap on Linux and sandbox-exec on macOS when they work; "none" never confines. */
export type ConfinementMode = "auto" | "bubblewrap" | "sandbox-exec" | "none";

/** The environment variable that allows running generated code without OS confinement. */
export const ALLOW_UNCONFINED_ENV = "SPADE_SANDBOX_ALLOW_UNCONFINED";

/** The confinement is "none" and the user did not opt in: generated code is not run. */
export class SandboxUnconfinedError extends Error {
  override readonly name = "SandboxUnconfinedError";
  constructor(reason: string) {
    super(
      `no OS confinement for the sandbox on this machine (${reason}), so generated code is not run. ` +
        `Install bubblewrap (Debian/Ubuntu: apt-get install -y bubblewrap), or accept the reduced isolation with ` +
        `"sandbox": {"allowUnconfined": true} in the run config or ${ALLOW_UNCONFINED_ENV}=1`,
    );
  }
}

/** True when the environment variable opts in to unconfined sandboxes. */
export function unconfinedAllowedByEnvironment(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[ALLOW_UNCONFINED_ENV] === "1" || env[ALLOW_UNCONFINED_ENV] === "true";
}

function onPath(name: string): string | null {
  for (const folder of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(folder, name);
    if (folder && existsSync(candidate)) return candidate;
  }
  return null;
}

const chosen = new Map<ConfinementMode, Confinement>();

/** Why bubblewrap cannot start the runtime here (it needs user namespaces, or root), or null when it can. */
function probeBubblewrap(bwrap: string): string | null {
  const wrapped = new BubblewrapConfinement(bwrap).wrap({ executable: process.execPath, args: ["-e", ""], readOnlyPaths: [], env: {} });
  // The seccomp program is fed through descriptor 4, which spawnSync cannot do: probe without it.
  const at = wrapped.args.indexOf("--seccomp");
  const args = at >= 0 ? [...wrapped.args.slice(0, at), ...wrapped.args.slice(at + 2)] : wrapped.args;
  const probe = spawnSync(wrapped.command, args, { stdio: ["ignore", "ignore", "pipe"], timeout: 15_000, env: {} });
  if (probe.status === 0) return null;
  return `bubblewrap could not start a process: ${String(probe.stderr ?? "").trim().split("\n")[0] || `exit ${probe.status}`}`;
}

/** Picks the OS confinement for sandbox children, once per mode per process. */
export function chooseConfinement(mode: ConfinementMode = "auto"): Confinement {
  const known = chosen.get(mode);
  if (known) return known;
  let confinement: Confinement;
  if (mode === "none") confinement = new NoConfinement("switched off");
  else if (process.platform === "linux" && mode !== "sandbox-exec") {
    const bwrap = onPath("bwrap");
    const failure = bwrap ? probeBubblewrap(bwrap) : "bubblewrap (bwrap) is not installed";
    confinement = bwrap && failure === null ? new BubblewrapConfinement(bwrap) : new NoConfinement(failure ?? "bubblewrap is not available");
  } else if (process.platform === "darwin" && mode !== "bubblewrap") {
    confinement = existsSync("/usr/bin/sandbox-exec") ? new SandboxExecConfinement() : new NoConfinement("sandbox-exec is not available");
  } else {
    confinement = new NoConfinement(`no ${mode === "auto" ? "OS confinement" : mode} for ${process.platform}`);
  }
  chosen.set(mode, confinement);
  return confinement;
}

/** What the UI and the CLI show about the sandbox's isolation on this machine. */
export interface ConfinementSummary {
  /** "bubblewrap", "sandbox-exec" or "none". */
  name: string;
  confined: boolean;
  /** Every layer in force, OS and in-process, joined into one line. */
  description: string;
  /** Why there is no OS layer, when there is none. */
  reason: string | null;
}

/** The confinement the sandbox would use on this machine, for `spade serve`, the Workbench and the CLI. */
export function sandboxConfinement(mode: ConfinementMode = "auto"): ConfinementSummary {
  const confinement = chooseConfinement(mode);
  return {
    name: confinement.name,
    confined: confinement.confined,
    description: confinement.confined ? `${confinement.name}: ${confinement.layers.join("; ")}` : `none (${(confinement as NoConfinement).reason}): in-process layers only`,
    reason: confinement instanceof NoConfinement ? confinement.reason : null,
  };
}
