import type { LibraryKind } from "../../shared/libraryConfig.js";

/**
 * One problem of an environment library, as the library worker drew it: the environment, the
 * difficulty, the library's parameters and the problem's own seed (every reset of it poses the
 * same problem). Stored as the environment's code, so a run's library games are replayable.
 */
export interface LibraryProblem {
  library: LibraryKind;
  name: string;
  difficulty: number;
  seed: number;
  parameter?: unknown;
}

/** The text a library problem is stored as (in place of an environment's code). */
export function formatLibraryProblem(problem: LibraryProblem): string {
  return `${JSON.stringify(problem, null, 2)}\n`;
}

/** The problem a stored library environment's code holds, or null when the code is not one. */
export function parseLibraryProblem(code: string): LibraryProblem | null {
  if (!code.trimStart().startsWith("{")) return null;
  try {
    const value = JSON.parse(code) as Partial<LibraryProblem>;
    const ok = typeof value.library === "string" && typeof value.name === "string" && Number.isInteger(value.difficulty) && Number.isInteger(value.seed);
    return ok ? (value as LibraryProblem) : null;
  } catch {
    return null;
  }
}
