import { InputError } from "./InputError.js";

// Small readers for untrusted JSON. `where` names the source (a file or "request") and `path` the
// field, so every message reads like `run.json: backend.threads: expected a positive integer, got "x"`.

export type Fields = Record<string, unknown>;

function got(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? value.slice(0, 57) + "..." : value);
  return JSON.stringify(value) ?? String(value);
}

export function fail(where: string, path: string, expected: string, value: unknown): never {
  throw new InputError(`${where}: ${path}: expected ${expected}, got ${got(value)}`);
}

/** An object whose keys are all in `allowed`; an unknown key is refused by name. */
export function readObject(where: string, path: string, value: unknown, allowed: readonly string[]): Fields {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(where, path, "an object", value);
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw new InputError(`${where}: ${path ? `${path}.` : ""}${key}: unknown key (known keys: ${allowed.join(", ")})`);
    }
  }
  return value as Fields;
}

export function readInteger(where: string, path: string, value: unknown, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    const range = min === Number.MIN_SAFE_INTEGER ? "" : max === Number.MAX_SAFE_INTEGER ? ` >= ${min}` : ` in [${min}, ${max}]`;
    fail(where, path, `an integer${range}`, value);
  }
  return value;
}

export function readNumber(where: string, path: string, value: unknown, min = -Infinity, max = Infinity): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) {
    fail(where, path, Number.isFinite(min) || Number.isFinite(max) ? `a number in [${min}, ${max}]` : "a number", value);
  }
  return value;
}

/** The longest string a config field takes unless it says otherwise (names, paths, skills, commands). */
export const defaultMaxLength = 4096;

export interface StringOptions {
  nonEmpty?: boolean;
  oneOf?: readonly string[];
  /** Defaults to `defaultMaxLength` (4096 characters): free text never grows without bound. */
  maxLength?: number;
}

export function readString(where: string, path: string, value: unknown, options: StringOptions = {}): string {
  if (typeof value !== "string") fail(where, path, "a string", value);
  const maxLength = options.maxLength ?? defaultMaxLength;
  if (value.length > maxLength) fail(where, path, `a string of at most ${maxLength} characters (it has ${value.length})`, value);
  if (options.nonEmpty && value.trim() === "") fail(where, path, "a non-empty string", value);
  if (options.oneOf && !options.oneOf.includes(value)) fail(where, path, `one of ${options.oneOf.map((v) => JSON.stringify(v)).join(", ")}`, value);
  return value;
}

export function readBoolean(where: string, path: string, value: unknown): boolean {
  if (typeof value !== "boolean") fail(where, path, "true or false", value);
  return value;
}

export function readStringArray(where: string, path: string, value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) fail(where, path, "a non-empty array of strings", value);
  return value.map((item, i) => readString(where, `${path}[${i}]`, item, { nonEmpty: true }));
}

/** Reads an optional field: `undefined` stays undefined, anything else must pass `read`. */
export function optional<T>(value: unknown, read: (value: unknown) => T): T | undefined {
  return value === undefined ? undefined : read(value);
}
