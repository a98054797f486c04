import { dirname, isAbsolute, resolve } from "node:path";
import { parseBackendConfig, type BackendConfig } from "../../shared/backendConfig.js";
import { parseRunConfig } from "../../shared/runConfig.js";
import { optional, readObject, readString } from "../../shared/validation/fields.js";

/** What `spade eval --config` needs: the model, and the workspace where results are stored. */
export interface EvalConfig {
  /** Model and adapter paths stay relative: `createBackend` resolves them against `baseDir`. */
  backend: BackendConfig;
  /** The workspace database (absolute), or null: results are printed, not stored. */
  db: string | null;
  /** The config file's folder. */
  baseDir: string;
}

/**
 * Reads the config of `spade eval`: a whole run config (checked like `spade run` checks it), or a
 * small `{"backend": {...}, "db"?: path}`. Unknown keys and wrong types are refused by name.
 */
export function readEvalConfig(value: unknown, configPath: string): EvalConfig {
  const baseDir = dirname(resolve(configPath));
  const fields = readObject(configPath, "", value, Object.keys((value ?? {}) as object));
  let backend: unknown;
  let db: string | undefined;
  if ("iterations" in fields) {
    const config = parseRunConfig(value, configPath);
    backend = config.backend;
    db = config.db;
  } else {
    readObject(configPath, "", value, ["backend", "db"]);
    backend = fields.backend;
    db = optional(fields.db, (v) => readString(configPath, "db", v, { nonEmpty: true }));
  }
  return {
    backend: parseBackendConfig(backend, configPath),
    db: db === undefined ? null : isAbsolute(db) ? db : resolve(baseDir, db),
    baseDir,
  };
}
