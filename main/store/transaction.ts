import type { WritableDb } from "./DatabaseHandle.js";

/**
 * Runs `fn` in one transaction: all its writes commit together, or none do when it throws.
 * Nested calls become savepoints of the outer transaction.
 */
export function transaction<T>(db: WritableDb, fn: () => T): T {
  return db.transaction(fn)();
}
