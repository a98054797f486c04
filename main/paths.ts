import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let cachedRoot: string | undefined;

/**
 * The folder holding `resources/`: the repository root when running from source or `out/`, or
 * the directory named by SPADE_RESOURCES_ROOT (set by the packaged Electron shell).
 */
export function appRoot(): string {
  if (cachedRoot) return cachedRoot;
  const fromEnv = process.env.SPADE_RESOURCES_ROOT;
  if (fromEnv && existsSync(join(fromEnv, "resources"))) return (cachedRoot = fromEnv);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "resources")) && existsSync(join(dir, "package.json"))) return (cachedRoot = dir);
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the resources folder above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/** A path inside `resources/`. */
export function resourcePath(...parts: string[]): string {
  return join(appRoot(), "resources", ...parts);
}
