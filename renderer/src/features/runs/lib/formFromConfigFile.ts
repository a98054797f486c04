// A run config file, as `spade run --config` takes it (e.g. resources/examples/quick-start.json) ->
// the start form, the way "Clone run" fills it from a stored config: the file is parsed with the
// engine's own parser, less what belongs to the workbench instead: `db` (it runs in its own workspace)
// and `backend.modelsDir` (it downloads into and reads from its own models folder, the Models page's).
import { parseRunConfig } from "../../../../../shared/runConfig.js";
import type { RunForm } from "./buildRunConfig.js";
import { formFromConfig } from "./formFromConfig.js";

/** A config file that is not JSON, not an object, or not a run config; the message names the file. */
export class ConfigFileError extends Error {
  override readonly name = "ConfigFileError";
}

/** The start form for the run config in `text`, read from the file `fileName`. */
export function formFromConfigFile(fileName: string, text: string): RunForm {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigFileError(`${fileName}: not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ConfigFileError(`${fileName}: expected a run config (a JSON object), got ${Array.isArray(value) ? "an array" : JSON.stringify(value)}`);
  const raw = { ...(value as Record<string, unknown>) };
  const backend = raw.backend;
  if (backend !== null && typeof backend === "object" && !Array.isArray(backend)) {
    const { modelsDir: _modelsDir, ...rest } = backend as Record<string, unknown>;
    raw.backend = rest;
  }
  let parsed: unknown;
  try {
    parsed = parseRunConfig({ ...raw, db: "workspace.sqlite" }, fileName);
  } catch (error) {
    throw new ConfigFileError((error as Error).message);
  }
  return formFromConfig(parsed as Record<string, unknown>);
}
