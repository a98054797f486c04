// `npm start`: the Electron window where Electron can run (binary downloaded, a display present),
// otherwise the same workbench served on 127.0.0.1 for a browser (`spade serve` on the default
// workspace, printing the address line). Builds whatever is missing first, quietly (one line says
// so): build output is shown only when a build fails.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bindingEnvVar, describeTarget, electronTarget, ensureBinding } from "./nativeBinding.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const outputs = {
  engine: join(root, "out", "engine", "main", "cli", "spade.js"),
  renderer: join(root, "out", "renderer", "index.html"),
  shell: join(root, "out", "main", "index.js"),
};

/** The Electron binary, or null when it was never downloaded. */
export function electronBinary(rootDir = root) {
  const pathFile = join(rootDir, "node_modules", "electron", "path.txt");
  if (!existsSync(pathFile)) return null;
  const binary = join(rootDir, "node_modules", "electron", "dist", readFileSync(pathFile, "utf8").trim());
  return existsSync(binary) ? binary : null;
}

/** A display to open a window on: always on macOS and Windows; X11 or Wayland on Linux. */
export function hasDisplay(env = process.env, platform = process.platform) {
  if (platform === "darwin" || platform === "win32") return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/**
 * Runs a build step quietly: its output is kept and shown only when it fails (with the command),
 * so a first start prints the address line, not a page of build logs.
 * @param {string} command
 * @param {string[]} args
 */
function build(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", maxBuffer: 64 * 1024 * 1024, shell: process.platform === "win32" });
  if (result.status === 0) return;
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`.trimEnd();
  if (output) console.error(output);
  if (result.error) console.error(result.error.message);
  console.error(`spade-workbench: building failed: \`${command} ${args.join(" ")}\` exited with ${result.status ?? result.signal}`);
  process.exit(result.status || 1);
}

/** @param {boolean} needShell */
function buildMissing(needShell) {
  const bin = (/** @type {string} */ name) => join(root, "node_modules", ".bin", name);
  const engine = !existsSync(outputs.engine);
  const ui = !existsSync(outputs.renderer) || (needShell && !existsSync(outputs.shell));
  // One line, so a first start that builds for a minute or two is not taken for a hang.
  if (engine || ui) console.error(`spade-workbench: building the ${engine && ui ? "engine and the UI" : engine ? "engine" : "UI"}, first start only (a minute or two)...`);
  if (engine) build(bin("tsc"), ["-p", "tsconfig.engine.json"]);
  if (ui) build(bin("electron-vite"), ["build"]);
}

/** @param {import("node:child_process").ChildProcess} child */
function forward(child) {
  for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM"])) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

/**
 * The better-sqlite3 build for the installed Electron (built on first start, rebuilt when
 * Electron's version changed), or null with the reason printed when it cannot be built.
 */
function electronSqliteBinding() {
  const target = electronTarget(root);
  if (!target) {
    console.error("spade-workbench: node_modules/electron is missing (run `npm ci`).");
    return null;
  }
  try {
    return ensureBinding(target, { root, log: (line) => console.error(line) });
  } catch (error) {
    console.error(`spade-workbench: ${/** @type {Error} */ (error).message}`);
    console.error(`spade-workbench: the window needs better-sqlite3 built for ${describeTarget(target)}; serving the workbench for your browser instead.`);
    return null;
  }
}

const binary = electronBinary();
const wantWindow = binary !== null && hasDisplay() && process.env.SPADE_BROWSER_MODE !== "1";
const binding = wantWindow ? electronSqliteBinding() : null;
buildMissing(binding !== null);
if (binary !== null && binding !== null) {
  // Options after `npm start --` (--token, --port, --db) reach the shell as they reach `spade serve`.
  forward(spawn(binary, [".", ...process.argv.slice(2)], { cwd: root, stdio: "inherit", env: { ...process.env, [bindingEnvVar]: binding } }));
} else {
  if (binary === null) console.error("spade-workbench: no Electron binary here; serving the workbench for your browser instead.");
  else if (!hasDisplay()) console.error("spade-workbench: no display; serving the workbench for your browser instead.");
  else if (process.env.SPADE_BROWSER_MODE === "1") console.error("spade-workbench: SPADE_BROWSER_MODE=1; serving the workbench for your browser instead.");
  forward(spawn(process.execPath, [outputs.engine, "serve", ...process.argv.slice(2)], { cwd: root, stdio: "inherit" }));
}
