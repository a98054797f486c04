import type { LibraryConfig } from "../../shared/libraryConfig.js";

/** An environment library that cannot be used: not found, a dependency missing, a set it does not have. Raised at run start. */
export class LibraryLoadError extends Error {
  override readonly name = "LibraryLoadError";
  constructor(
    readonly library: LibraryConfig,
    detail: string,
  ) {
    super(`designer.library (${library.kind}${library.path ? ` at ${library.path}` : ""}): ${detail}`);
  }
}
