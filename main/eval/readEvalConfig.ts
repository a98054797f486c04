import { dirname, isAbsolute, resolve } from "node:path";
import { backendSchema, withoutUndefined, type BackendConfig } from "../../shared/backendConfig.js";
import { parseRunConfig } from "../../shared/runConfig.js";
import { parseConfig, strict, text } from "../../shared/validation/schema.js";

/** What `spade eval --config` needs: the model, and the workspace where results are stored. */
export interface EvalConfig {
  /** Model and adapter paths stay relative: `createBackend` resolves them against `baseDir`. */
  backend: BackendConfig;
  /** The workspace database (absolute), or null: results are printed, not stored. */
  db: string | null;
  /** The config file's folder. */
  baseDir: string;
  /** The model that plays the user in ACEBench-Agent multi_turn items (the reference uses gpt-4o), or null: the evaluated model plays it. */
  userBackend: BackendConfig | null;
}

/** The small form of an eval config: the model, and optionally the workspace and ACEBench's user simulator. */
const evalConfigSchema = strict({ backend: backendSchema, db: text({ nonEmpty: true }).optional(), userBackend: backendSchema.optional() });

/**
 * Reads the config of `spade eval`: a whole run config (checked like `spade run` checks it), or a
 * small `{"backend": {...}, "db"?: path, "userBackend"?: {...}}`. Unknown keys and wrong types are refused by name.
 */
export function readEvalConfig(value: unknown, configPath: string): EvalConfig {
  const baseDir = dirname(resolve(configPath));
  const runConfig = typeof value === "object" && value !== null && !Array.isArray(value) && "iterations" in value;
  const { backend, db } = runConfig ? parseRunConfig(value, configPath) : parseConfig(evalConfigSchema, value, configPath);
  const userBackend = runConfig ? undefined : parseConfig(evalConfigSchema, value, configPath).userBackend;
  return {
    userBackend: userBackend === undefined ? null : (withoutUndefined(userBackend) as BackendConfig),
    backend: withoutUndefined(backend) as BackendConfig,
    db: db === undefined ? null : isAbsolute(db) ? db : resolve(baseDir, db),
    baseDir,
  };
}
