import type { HParamValue } from "./tensorboardEvents.js";

/**
 * A run config as TensorBoard hyperparameters: one scalar per leaf, named by its dotted key path
 * (`reward.kind`, `backend.contextSize`). Lists are written as their JSON, `null` as "null"
 * (the HParams plugin takes numbers, strings and booleans only).
 */
export function configHParams(config: unknown, prefix = ""): Record<string, HParamValue> {
  const hparams: Record<string, HParamValue> = {};
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    if (prefix) hparams[prefix] = scalar(config);
    return hparams;
  }
  for (const [key, value] of Object.entries(config)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (value === undefined) continue;
    if (typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length > 0) Object.assign(hparams, configHParams(value, name));
    else hparams[name] = scalar(value);
  }
  return hparams;
}

function scalar(value: unknown): HParamValue {
  if (typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return value;
  return JSON.stringify(value) ?? String(value);
}
