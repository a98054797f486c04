import type BetterSqlite3 from "better-sqlite3";
import type { ReadonlyDb } from "./DatabaseHandle.js";

const cache = new WeakMap<ReadonlyDb, Map<string, BetterSqlite3.Statement>>();

/** The prepared statement for `sql` on this connection, prepared once and reused. */
export function statement(db: ReadonlyDb, sql: string): BetterSqlite3.Statement {
  let statements = cache.get(db);
  if (!statements) cache.set(db, (statements = new Map()));
  let prepared = statements.get(sql);
  if (!prepared) statements.set(sql, (prepared = db.prepare(sql)));
  return prepared;
}
