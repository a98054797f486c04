import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { CorpusError } from "./CorpusError.js";

/**
 * A decompressed copy of a gzipped corpus file in `cacheDir` (see `corpusCacheDir`), made once per version of the
 * file (keyed by its path, size and modification time) and returned on later opens. `innerName` is
 * the file's name without `.gz`, kept so the reader is chosen by its extension.
 */
export async function gunzipToCache(path: string, innerName: string, cacheDir: string): Promise<string> {
  const info = statSync(path);
  const key = createHash("sha256").update(`${resolve(path)}\0${info.size}\0${info.mtimeMs}`).digest("hex").slice(0, 16);
  const target = join(cacheDir, `${key}-${innerName}`);
  if (existsSync(target)) return target;
  mkdirSync(cacheDir, { recursive: true });
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    await pipeline(createReadStream(path), createGunzip(), createWriteStream(temporary));
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new CorpusError(`corpus ${path}: cannot decompress it (${(error as Error).message}); expected a gzip file`);
  }
  renameSync(temporary, target);
  return target;
}
