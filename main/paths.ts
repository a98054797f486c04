import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let cachedRoot: string | undefined;

/**
 * The folder holding `resources/`: the repository root when running from source or `out/`, or
 * the directory named by SPADE_RESOURCES_ROOT (set by the Electron shell; in a packaged app it is
 * `.../resources/app.asar`, which Electron's own fs reads but a child process cannot).
 */
export function appRoot(): string {
  if (cachedRoot) return cachedRoot;
  const fromEnv = process.env.SPADE_RESOURCES_ROOT;
  if (fromEnv && (existsSync(join(fromEnv, "resources")) || existsSync(join(unpackedPath(fromEnv), "resources")))) return (cachedRoot = fromEnv);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "resources")) && existsSync(join(dir, "package.json"))) return (cachedRoot = dir);
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the resources folder above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/**
 * The same path in `app.asar.unpacked` when it points into a packaged app's `app.asar` archive;
 * any other path unchanged. Everything a child process or Node's permission model reads from disk
 * (Pyodide, the sandbox scripts, the Python harness, trainer scripts) must go through it: only
 * Electron's patched fs can read inside the archive, and electron-builder.yml's `asarUnpack`
 * puts those files next to it.
 */
export function unpackedPath(path: string): string {
  return path.replace(/([\\/])app\.asar(?=[\\/]|$)/, `$1app.asar.unpacked`);
}

/** A path inside `resources/`, outside the asar archive in a packaged app (see `unpackedPath`). */
export function resourcePath(...parts: string[]): string {
  return unpackedPath(join(appRoot(), "resources", ...parts));
}
