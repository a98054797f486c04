import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";

/**
 * Where corpus indexes and decompressed copies of gzipped corpora go (never beside the user's
 * corpus): with a workspace database, its cache folder `<workspace folder>/cache/corpora`; without
 * one, the user cache `$XDG_CACHE_HOME/spade-workbench/corpora` (else `~/.cache/...`).
 */
export function corpusCacheDir(workspaceDb?: string): string {
  if (workspaceDb !== undefined) return join(dirname(resolve(workspaceDb)), "cache", "corpora");
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "spade-workbench", "corpora");
}
