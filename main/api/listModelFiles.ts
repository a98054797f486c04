import { readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { ModelFile } from "../../shared/api/modelTypes.js";

/** A file's name, path and size. */
export function describeModelFile(path: string): ModelFile {
  return { name: basename(path), path, bytes: statSync(path).size };
}

/** The GGUF files directly in `dir`, by name; none when the folder does not exist yet. */
export function listModelFiles(dir: string): ModelFile[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.toLowerCase().endsWith(".gguf"));
  } catch {
    return [];
  }
  return names.sort().map((name) => describeModelFile(join(dir, name)));
}
