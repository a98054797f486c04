import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { getAdapterByName } from "../store/queries/adapters.js";

/**
 * A new versioned adapter name, `<prefix>-v<k>` with the smallest k that neither the registry nor
 * the adapter folder has used: files are never overwritten (llama.cpp caches adapters by path).
 */
export function nextAdapterName(db: ReadonlyDb, adaptersDir: string, prefix: string): string {
  for (let version = 1; ; version++) {
    const name = `${prefix}-v${version}`;
    if (!getAdapterByName(db, name) && !existsSync(join(adaptersDir, `${name}.gguf`))) return name;
  }
}
