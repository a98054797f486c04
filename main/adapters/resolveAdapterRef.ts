import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { getAdapter, getAdapterByName, type Adapter } from "../store/queries/adapters.js";
import { findAdapterIdByPath } from "../store/queries/trainingQueries.js";
import { UnknownAdapterError } from "./UnknownAdapterError.js";

export interface ResolvedAdapter {
  /** The registered adapter, or null for a file the registry does not know. */
  adapter: Adapter | null;
  /** The adapter's GGUF file. */
  path: string;
}

/**
 * What `--adapter` names: a registered adapter's id or name, or the path of a GGUF file (matched
 * against the registry so results can be stored under it). Relative paths resolve against `baseDir`.
 */
export function resolveAdapterRef(db: ReadonlyDb | null, ref: string, baseDir: string = process.cwd()): ResolvedAdapter {
  if (/^\d+$/.test(ref)) {
    if (!db) throw new UnknownAdapterError(`adapter ${ref}: an adapter id needs a workspace database (the config's db)`);
    const adapter = getAdapter(db, Number(ref));
    if (!adapter) throw new UnknownAdapterError(`adapter ${ref} is not registered in ${db.name}`);
    return { adapter, path: adapter.path };
  }
  const byName = db ? getAdapterByName(db, ref) : null;
  if (byName) return { adapter: byName, path: byName.path };
  const path = resolve(baseDir, ref);
  if (!existsSync(path)) throw new UnknownAdapterError(`adapter "${ref}" is neither a registered adapter nor an existing file (${path})`);
  const id = db ? findAdapterIdByPath(db, path) : null;
  return { adapter: id === null ? null : getAdapter(db!, id), path };
}
