import type { WritableDb } from "./DatabaseHandle.js";

/**
 * Runs `fn` in one transaction: all its writes commit together, or none do when it throws.
 * Nested calls become savepoints of the outer transaction. It takes the write lock as it begins
 * (BEGIN IMMEDIATE), waiting up to the busy timeout for another process's writer: a deferred
 * transaction that has read and then writes after another process committed (a run's engine and
 * `spade serve` share a workspace) fails at once with "database is locked", whatever the timeout.
 */
export function transaction<T>(db: WritableDb, fn: () => T): T {
  return db.transaction(fn).immediate();
}
