import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { unpackedPath } from "../paths.js";
import { chooseConfinement, type ConfinementMode } from "./confinement/chooseConfinement.js";
import type { Confinement } from "./confinement/Confinement.js";

/** How to start one sandbox child process, and what isolates it. */
export interface SandboxLaunch {
  command: string;
  args: string[];
  /** Written to the pipes at descriptors 4, 5, ... (the seccomp program for bubblewrap). */
  extraInputs: Buffer[];
  /** The OS confinement wrapping the child. */
  confinement: Confinement;
  /** A readable list of the isolation layers in force. */
  isolation: string;
  /** The active layers in a few words each, e.g. "bubblewrap+seccomp+node-permissions+no-eval". */
  confinementSummary: string;
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
  /** Which OS confinement wraps the child. Defaults to "auto" (bubblewrap on Linux, sandbox-exec on macOS). */
  confinement?: ConfinementMode;
  /** The interpreter snapshot file the child may read, if any. Defaults to none. */
  snapshotPath?: string | null;
}

/** The folder of the installed pyodide package. */
export function pyodideDirectory(): string {
  return unpackedPath(dirname(createRequire(import.meta.url).resolve("pyodide/package.json")));
}

/** The child's host script, next to this file both in the sources and in out/. */
export function sandboxHostScript(): string {
  return unpackedPath(fileURLToPath(new URL("./child/sandboxHost.mjs", import.meta.url)));
}

/**
 * How the child compiles the interpreter's WebAssembly (measured in `spade bench`'s sandboxStart
 * section). A fresh process uses a small part of CPython's 9.6 MB of code: functions are
 * validated and compiled (by Liftoff, the baseline compiler) when first called, not all up front,
 * and TurboFan optimises only a function that ran long (about 30x V8's default budget), so a short
 * life spends no CPU on background optimisation while a long hot loop still gets optimised code.
 * Eager compilation with the default tier-up cost about 0.8 s of CPU per process here; validating
 * every function of the module up front, about 60 ms more. A function is still validated before
 * it is compiled, and an invalid one throws a CompileError at its first call instead of running.
 * Only the interpreter's own module is compiled so: Pyodide probes for WebAssembly features by
 * compiling small modules and catching the CompileError, so the child validates every other
 * module in full first (child/eagerValidation.mjs).
 */
export const WASM_COMPILE_FLAGS = ["--wasm-lazy-compilation", "--wasm-lazy-validation", "--wasm-tiering-budget=50000000"];

/**
 * How the child collects its JavaScript garbage: on its own thread only. A child is one thread of
 * work that blocks between requests; V8's helper threads (parallel scavenges, concurrent marking)
 * only add the cost of sharing the work out, on a machine whose cores the engine, the other
 * children and the model already use. Measured in the `regeneration` bench (one-turn plays at 64 in
 * flight, 2 cores): the children's CPU per play 10.6 -> 9.0 ms (regeneration rollout) and 8.1 -> 7.7
 * ms (replay), a pool of 16 processes started with 9.0 CPU s instead of 9.8.
 */
export const GC_FLAGS = ["--single-threaded-gc"];

const IN_PROCESS_LAYERS = [
  "separate process with an empty environment",
  "Node permission model (reads: Pyodide, the sandbox scripts and the snapshot; no writes, no child processes), checked by the child at start-up",
  "code generation from strings disallowed; Emscripten's script evaluation and require made inert",
  "module hook refusing network, process, thread and inspector modules",
  "JavaScript realm hardened (no Function constructor, process stripped, intrinsics frozen)",
  "Python: JavaScript bridges removed, an audit hook refusing introspection, imports of the bridges and process control",
  "strict newline-delimited JSON protocol on a dedicated pipe, checked by the engine",
];

/** The command line of a sandbox child: the OS confinement around Node with its permission model and a heap cap. */
export function buildSandboxLaunch(options: SandboxLaunchOptions = {}): SandboxLaunch {
  const pyodide = pyodideDirectory();
  const script = sandboxHostScript();
  const snapshot = options.snapshotPath ?? null;
  const nodeArgs = [
    permissionFlag(),
    `--allow-fs-read=${pyodide}`,
    `--allow-fs-read=${dirname(script)}`,
    // The child lists and closes descriptors it inherited: exactly that folder. A grant of
    // /proc/self/ would also grant its `root` and `cwd` links, which Node follows to the whole
    // file system.
    "--allow-fs-read=/proc/self/fd/",
    ...(snapshot ? [`--allow-fs-read=${snapshot}`] : []),
    // module.register() runs its hooks on a loader thread, which the permission model counts as a worker.
    "--allow-worker",
    "--disallow-code-generation-from-strings",
    ...WASM_COMPILE_FLAGS,
    ...GC_FLAGS,
    `--max-old-space-size=${options.jsHeapMb ?? 512}`,
    "--disable-warning=ExperimentalWarning",
    "--disable-warning=SecurityWarning",
    script,
    pyodide,
  ];
  const confinement = chooseConfinement(options.confinement ?? "auto");
  const wrapped = confinement.wrap({
    executable: process.execPath,
    args: nodeArgs,
    readOnlyPaths: [pyodide, dirname(script), ...(snapshot ? [snapshot] : [])],
    env: sandboxEnvironment(),
  });
  const layers = confinement.confined ? [...confinement.layers, ...IN_PROCESS_LAYERS] : [`no OS confinement (${"reason" in confinement ? String(confinement.reason) : "none"})`, ...IN_PROCESS_LAYERS];
  const osLayers = confinement.name === "bubblewrap" ? ["bubblewrap", ...(wrapped.extraInputs.length > 0 ? ["seccomp"] : [])] : confinement.confined ? [confinement.name] : ["unconfined"];
  return {
    command: wrapped.command,
    args: wrapped.args,
    extraInputs: wrapped.extraInputs,
    confinement,
    isolation: layers.join("; "),
    confinementSummary: [...osLayers, "node-permissions", "no-eval", "module-gate", "python-audit"].join("+"),
    env: wrapped.env,
  };
}
