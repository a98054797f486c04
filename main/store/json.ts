import { StoreDataError } from "./StoreDataError.js";

/** The JSON text for a JSON column, or NULL for null/undefined. */
export function toJson(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** Parses a JSON column; NULL stays null. `column` names it in the error (e.g. `environments.validation`). */
export function fromJson<T>(text: unknown, column: string): T | null {
  if (text === null || text === undefined) return null;
  if (typeof text !== "string") throw new StoreDataError(column, `expected JSON text, found ${typeof text}`);
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new StoreDataError(column, `invalid JSON (${(error as Error).message})`);
  }
}

/** SQLite stores booleans as 0/1. */
export function toFlag(value: boolean | null | undefined): 0 | 1 | null {
  return value === null || value === undefined ? null : value ? 1 : 0;
}
