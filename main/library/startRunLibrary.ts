import type { RunConfig } from "../../shared/runConfig.js";
import { resolveTrainerPython } from "../training/resolveTrainerPython.js";
import { LibraryHost } from "./LibraryHost.js";

/**
 * The library of a `designer.kind: "library"` run, loaded: in the library's own interpreter, else
 * the training block's, else the trainers' (found as the README says).
 */
export function startRunLibrary(config: RunConfig): Promise<LibraryHost> {
  const library = config.designer.library;
  if (!library) throw new TypeError('startRunLibrary: designer.kind "library" needs designer.library');
  const python = library.python ?? config.training?.python ?? resolveTrainerPython();
  return LibraryHost.start({ library, python });
}
