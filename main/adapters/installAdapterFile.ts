import { chmod, copyFile, constants, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { checkAdapterFile } from "../llm/gguf/checkAdapterFile.js";
import type { GgufInfo } from "../llm/gguf/GgufInfo.js";
import { sha256File } from "./sha256File.js";

/**
 * Checks a GGUF LoRA against its base model (a wrong architecture or shape fails with
 * AdapterMismatchError) and copies it to `destPath`, read-only: an adapter version is immutable.
 * Refuses to replace an existing file. Returns the adapter's sha256.
 */
export async function installAdapterFile(sourcePath: string, destPath: string, base: GgufInfo): Promise<string> {
  await checkAdapterFile(sourcePath, base);
  await mkdir(dirname(destPath), { recursive: true });
  await copyFile(sourcePath, destPath, constants.COPYFILE_EXCL);
  await chmod(destPath, 0o444);
  return sha256File(destPath);
}
