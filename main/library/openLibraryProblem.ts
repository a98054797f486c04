import { fillLibrary } from "../../shared/libraryConfig.js";
import type { EnvSession } from "../sandbox/EnvSession.js";
import { LibraryHost } from "./LibraryHost.js";
import type { LibraryProblem } from "./LibraryProblem.js";

export interface OpenLibraryProblemOptions {
  /** Where the library is (RLVE's `Gym` folder; a folder to import GEM or reasoning-gym from). Defaults to none: installed in the interpreter. */
  path?: string | null;
  /** The interpreter. */
  python: string;
}

/**
 * Plays a stored library problem (an environment whose code column holds the problem's JSON) outside
 * a run: loads its library with only that environment and opens the problem. `dispose` stops the
 * library's workers.
 */
export async function openLibraryProblem(problem: LibraryProblem, options: OpenLibraryProblemOptions): Promise<{ open: () => Promise<EnvSession>; dispose: () => Promise<void> }> {
  const library = fillLibrary({ kind: problem.library, path: options.path ?? null, set: [problem.name] }, "env play");
  const host = await LibraryHost.start({ library, python: options.python });
  return { open: () => host.open(problem), dispose: () => host.dispose() };
}
