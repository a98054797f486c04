import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Where corpus indexes and decompressed copies go when the corpus's own folder is not writable:
 * `$XDG_CACHE_HOME/spade-workbench/corpora` (else `~/.cache/...`).
 */
export function corpusCacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "spade-workbench", "corpora");
}
