// Small input validators for the API's edge. Each returns the value typed, or throws an
// ApiInputError whose message names the field path, the expected shape and the value received.
import { ApiInputError } from "./ApiInputError.js";

export type Validator<T> = (value: unknown, path: string) => T;

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}...` : value);
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 60)}...` : text;
  } catch {
    return String(value);
  }
}

function fail(path: string, expected: string, value: unknown): never {
  throw new ApiInputError(`field "${path}" must be ${expected}, got ${describe(value)}`);
}

export interface IntegerBounds {
  /** Defaults to Number.MIN_SAFE_INTEGER. */
  min?: number;
  /** Defaults to Number.MAX_SAFE_INTEGER. */
  max?: number;
}

export function integer(bounds: IntegerBounds = {}): Validator<number> {
  const min = bounds.min ?? Number.MIN_SAFE_INTEGER;
  const max = bounds.max ?? Number.MAX_SAFE_INTEGER;
  const expected = bounds.min === undefined && bounds.max === undefined ? "an integer" : `an integer in [${min}, ${max}]`;
  return (value, path) => {
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) fail(path, expected, value);
    return value;
  };
}

/** A positive integer id (database row ids). */
export const id: Validator<number> = integer({ min: 1 });

export function finiteNumber(): Validator<number> {
  return (value, path) => {
    if (typeof value !== "number" || !Number.isFinite(value)) fail(path, "a finite number", value);
    return value;
  };
}

export interface StringLimits {
  /** Defaults to 0. */
  minLength?: number;
  /** Defaults to 10,000,000 characters. */
  maxLength?: number;
}

export function string(limits: StringLimits = {}): Validator<string> {
  const minLength = limits.minLength ?? 0;
  const maxLength = limits.maxLength ?? 10_000_000;
  return (value, path) => {
    if (typeof value !== "string") fail(path, "a string", value);
    if (value.length < minLength) fail(path, minLength === 1 ? "a non-empty string" : `a string of at least ${minLength} characters`, value);
    if (value.length > maxLength) fail(path, `a string of at most ${maxLength} characters`, value);
    return value;
  };
}

/** A string matching `pattern`; `expected` says what that means in words. */
export function matching(pattern: RegExp, expected: string, maxLength = 10_000): Validator<string> {
  return (value, path) => {
    if (typeof value !== "string" || value.length > maxLength || !pattern.test(value)) fail(path, expected, value);
    return value;
  };
}

export const boolean: Validator<boolean> = (value, path) => {
  if (typeof value !== "boolean") fail(path, "true or false", value);
  return value;
};

export function oneOf<const T extends string>(choices: readonly T[]): Validator<T> {
  return (value, path) => {
    if (typeof value !== "string" || !(choices as readonly string[]).includes(value)) {
      fail(path, `one of ${choices.map((c) => JSON.stringify(c)).join(", ")}`, value);
    }
    return value as T;
  };
}

export function arrayOf<T>(item: Validator<T>, maxItems = 1000): Validator<T[]> {
  return (value, path) => {
    if (!Array.isArray(value)) fail(path, "an array", value);
    if (value.length > maxItems) fail(path, `an array of at most ${maxItems} items`, value);
    return value.map((entry, i) => item(entry, `${path}[${i}]`));
  };
}

/** Any JSON object (checked to be a plain object; its contents are checked further in). */
export const jsonObject: Validator<Record<string, unknown>> = (value, path) => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(path, "an object", value);
  return value as Record<string, unknown>;
};

/** Marks a field optional: absent (or undefined) passes as undefined. */
export interface Optional<T> {
  optional: true;
  check: Validator<T>;
}

export function optional<T>(check: Validator<T>): Optional<T> {
  return { optional: true, check };
}

type FieldSpec = Validator<unknown> | Optional<unknown>;
type Shape = Record<string, FieldSpec>;
type Required<S extends Shape> = { [K in keyof S as S[K] extends Optional<unknown> ? never : K]: S[K] extends Validator<infer T> ? T : never };
type Optionals<S extends Shape> = { [K in keyof S as S[K] extends Optional<unknown> ? K : never]?: S[K] extends Optional<infer T> ? T : never };
export type ObjectOf<S extends Shape> = Required<S> & Optionals<S>;

/** An object with exactly these fields: unknown fields are refused by name (typos fail loudly). */
export function object<S extends Shape>(shape: S): Validator<ObjectOf<S>> {
  return (value, path) => {
    const input = jsonObject(value, path);
    for (const key of Object.keys(input)) {
      if (!(key in shape)) fail(path ? `${path}.${key}` : key, `absent (known fields: ${Object.keys(shape).join(", ") || "none"})`, input[key]);
    }
    const result: Record<string, unknown> = {};
    for (const [key, spec] of Object.entries(shape)) {
      const fieldPath = path ? `${path}.${key}` : key;
      const raw = input[key];
      if (typeof spec === "function") result[key] = spec(raw, fieldPath);
      else if (raw !== undefined && raw !== null) result[key] = spec.check(raw, fieldPath);
    }
    return result as ObjectOf<S>;
  };
}
