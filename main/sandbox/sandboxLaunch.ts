import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { unpackedPath } from "../paths.js";

/** How to start one sandbox child process, and what isolates it. */
export interface SandboxLaunch {
  command: string;
  args: string[];
  /** True when the child runs in its own network namespace (no network at all). */
  networkNamespace: boolean;
  /** A readable list of the isolation layers in force. */
  isolation: string;
  /** The child's whole environment: empty (no API keys, no paths), except what the runtime itself needs. */
  env: Record<string, string>;
}

/**
 * Inside Electron, `process.execPath` is the Electron binary: it runs as plain Node only with
 * ELECTRON_RUN_AS_NODE. Nothing else of the parent's environment is passed on.
 */
export function sandboxEnvironment(versions: NodeJS.ProcessVersions = process.versions): Record<string, string> {
  return versions.electron ? { ELECTRON_RUN_AS_NODE: "1" } : {};
}

/** Node renamed `--experimental-permission` to `--permission` in 22.13 (and 23.5). */
export function permissionFlag(nodeVersion: string = process.versions.node): string {
  const [major = 0, minor = 0] = nodeVersion.split(".").map(Number);
  return major > 23 || (major === 23 && minor >= 5) || (major === 22 && minor >= 13) ? "--permission" : "--experimental-permission";
}

export interface SandboxLaunchOptions {
  /** Heap limit of the child's JavaScript side, in MiB. Defaults to 512. */
  jsHeapMb?: number;
  /** "auto" puts the child in a network namespace where `unshare -rn` works; "off" never does. Defaults to "auto". */
  networkIsolation?: "auto" | "off";
}

let unshareWorks: boolean | undefined;

/** True when `unshare -rn` can start a process here (Linux with unprivileged user namespaces). */
export function canUnshareNetwork(): boolean {
  if (unshareWorks !== undefined) return unshareWorks;
  if (process.platform !== "linux") return (unshareWorks = false);
  const probe = spawnSync("unshare", ["-rn", process.execPath, "-e", ""], { stdio: "ignore", timeout: 10_000, env: sandboxEnvironment() });
  return (unshareWorks = probe.status === 0);
}

/** The folder of the installed pyodide package. */
export function pyodideDirectory(): string {
  return unpackedPath(dirname(createRequire(import.meta.url).resolve("pyodide/package.json")));
}

/** The child's host script, next to this file both in the sources and in out/. */
export function sandboxHostScript(): string {
  return unpackedPath(fileURLToPath(new URL("./child/sandboxHost.mjs", import.meta.url)));
}

/** The command line of a sandbox child: Node's permission model, a heap cap, and on Linux a network namespace. */
export function buildSandboxLaunch(options: SandboxLaunchOptions = {}): SandboxLaunch {
  const pyodide = pyodideDirectory();
  const script = sandboxHostScript();
  const nodeArgs = [
    permissionFlag(),
    `--allow-fs-read=${pyodide}`,
    `--allow-fs-read=${dirname(script)}`,
    // module.register() runs its hooks on a loader thread, which the permission model counts as a worker.
    "--allow-worker",
    "--expose-gc",
    `--max-old-space-size=${options.jsHeapMb ?? 512}`,
    "--disable-warning=ExperimentalWarning",
    "--disable-warning=SecurityWarning",
    script,
    pyodide,
  ];
  const layers = [
    "separate process with an empty environment",
    "Node permission model (file reads: Pyodide and the sandbox scripts only; no writes, no child processes)",
    "module hook refusing network, process, thread and inspector modules",
    "JavaScript realm hardened (no Function constructor, process stripped, intrinsics frozen)",
    "Python bridges to JavaScript removed",
  ];
  const namespace = (options.networkIsolation ?? "auto") === "auto" && canUnshareNetwork();
  if (namespace) {
    layers.push("own network namespace (unshare -rn): no network interfaces");
    return { command: "unshare", args: ["-rn", process.execPath, ...nodeArgs], networkNamespace: true, isolation: layers.join("; "), env: sandboxEnvironment() };
  }
  layers.push("no network namespace (unshare -rn unavailable or disabled): network blocked by the module hook only");
  return { command: process.execPath, args: nodeArgs, networkNamespace: false, isolation: layers.join("; "), env: sandboxEnvironment() };
}
