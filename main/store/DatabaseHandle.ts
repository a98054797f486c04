import type BetterSqlite3 from "better-sqlite3";

declare const readableBrand: unique symbol;
declare const writableBrand: unique symbol;

/**
 * A workspace database that can be read: what `openDatabase(path, { readonly: true })` returns.
 * Query functions that only read take this type, so they accept either kind of handle.
 */
export type ReadonlyDb = BetterSqlite3.Database & { readonly [readableBrand]: true };

/** A workspace database opened for writing (migrated to the current schema). Writers take this type. */
export type WritableDb = ReadonlyDb & { readonly [writableBrand]: true };
