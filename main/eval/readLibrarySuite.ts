import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import type * as z from "zod";
import { fillLibrary, librarySchema, type LibraryConfig } from "../../shared/libraryConfig.js";
import { InputError } from "../../shared/validation/InputError.js";
import { int, num, parseConfig, strict } from "../../shared/validation/schema.js";
import { SuiteFormatError } from "./SuiteFormatError.js";

/** A held-out suite of library games (GEM's games, reasoning-gym tasks), as the reference's GEM evaluation plays them. */
export interface LibrarySuite {
  library: LibraryConfig;
  /** Episodes per environment. Defaults to 8 (the reference's GEM evaluation). */
  episodes: number;
  /** Defaults to 2 (the reference's reasoning-gym tasks through GEM). */
  maxTurns: number;
  /** Defaults to 0.6. */
  temperature: number;
  /** Defaults to 8192. */
  maxTokens: number;
}

const librarySuiteSchema = strict({
  library: librarySchema,
  episodes: int(1).optional(),
  maxTurns: int(1).optional(),
  temperature: num(0, 2).optional(),
  maxTokens: int(1).optional(),
});

/** Whether a suite path is a library suite (a `.json` file whose object has a `library` key). */
export function isLibrarySuitePath(path: string): boolean {
  return path.endsWith(".json");
}

/** Reads `{"library": {"kind": "gem", "path"?, "set": [...]}, "episodes"?, "maxTurns"?, ...}`; paths are relative to the file. */
export function readLibrarySuite(path: string): LibrarySuite {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new SuiteFormatError(`${path}: expected a library suite as JSON ({"library": {"kind": "gem", "set": [...]}}): ${(error as Error).message}`);
  }
  try {
    const parsed = parseConfig(librarySuiteSchema, value, path) as z.output<typeof librarySuiteSchema>;
    const library = fillLibrary(parsed.library, path);
    const at = library.path && !isAbsolute(library.path) ? resolve(dirname(path), library.path) : library.path;
    return { library: { ...library, path: at }, episodes: parsed.episodes ?? 8, maxTurns: parsed.maxTurns ?? 2, temperature: parsed.temperature ?? 0.6, maxTokens: parsed.maxTokens ?? 8192 };
  } catch (error) {
    if (error instanceof InputError) throw new SuiteFormatError(error.message.replace(/designer\.library/g, "library"));
    throw error;
  }
}
