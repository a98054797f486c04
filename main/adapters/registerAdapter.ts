import { join } from "node:path";
import { checkModelFile } from "../llm/gguf/checkModelFile.js";
import type { WritableDb } from "../store/DatabaseHandle.js";
import { getAdapter, getAdapterByName, insertAdapter, type Adapter } from "../store/queries/adapters.js";
import { adaptersDirFor } from "./adaptersDirFor.js";
import { installAdapterFile } from "./installAdapterFile.js";
import { nextAdapterName } from "./nextAdapterName.js";
import { sha256File } from "./sha256File.js";
import { UnknownAdapterError } from "./UnknownAdapterError.js";
import { checkTextLength } from "../store/TextTooLongError.js";

export interface RegisterAdapterOptions {
  /** The GGUF LoRA to register; it is copied, the original stays where it is. */
  sourcePath: string;
  /** The base model GGUF it was trained for: the adapter is checked against it. */
  baseModelPath: string;
  /** The adapter it continues from. Defaults to none (trained on the base model). */
  parentId?: number | null;
  /** The run whose data trained it. Defaults to none. */
  runId?: number | null;
  /** A new name. Defaults to `imported-v<k>`. */
  name?: string;
  /** Defaults to `adapters/` next to the database. */
  adaptersDir?: string;
  /** Training data manifest, trainer command, log and metrics, when known. Default to none. */
  manifest?: unknown;
  trainerCommand?: string | null;
  log?: string | null;
  metrics?: unknown;
}

/** Registers an adapter trained elsewhere (e.g. by a distributed trainer): checked, copied read-only, recorded. */
export async function registerAdapter(db: WritableDb, options: RegisterAdapterOptions): Promise<Adapter> {
  if (options.parentId != null && !getAdapter(db, options.parentId)) throw new UnknownAdapterError(`parent adapter ${options.parentId} is not registered in ${db.name}`);
  const adaptersDir = options.adaptersDir ?? adaptersDirFor(db.name);
  if (options.name !== undefined) {
    checkTextLength("adapter name", options.name);
    if (!/^[\w.-]+$/.test(options.name)) throw new TypeError(`adapter name "${options.name}": use letters, digits, ".", "_" and "-" only`);
    if (getAdapterByName(db, options.name)) throw new TypeError(`adapter name "${options.name}" is already registered`);
  }
  const name = options.name ?? nextAdapterName(db, adaptersDir, "imported");
  const base = await checkModelFile(options.baseModelPath);
  const path = join(adaptersDir, `${name}.gguf`);
  const adapterSha256 = await installAdapterFile(options.sourcePath, path, base);
  const id = insertAdapter(db, {
    name,
    path,
    runId: options.runId ?? null,
    parentId: options.parentId ?? null,
    baseModelSha256: await sha256File(options.baseModelPath),
    manifest: options.manifest ?? null,
    trainerCommand: options.trainerCommand ?? null,
    log: options.log ?? null,
    metrics: options.metrics ?? { adapterSha256, source: options.sourcePath },
    status: "ready",
  });
  return getAdapter(db, id)!;
}
