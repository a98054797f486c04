import BetterSqlite3 from "better-sqlite3";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { ReadonlyDb, WritableDb } from "./DatabaseHandle.js";
import { DatabaseDamagedError } from "./DatabaseDamagedError.js";
import { DatabaseOpenError } from "./DatabaseOpenError.js";
import { NotAWorkspaceError } from "./NotAWorkspaceError.js";
import { DatabaseVersionError } from "./DatabaseVersionError.js";
import { migrateDatabase, readSchemaVersion, schemaVersion } from "./migrateDatabase.js";

/** `PRAGMA application_id` of a SPADE workspace ("SPAD"): tells our files from other SQLite files. */
export const spadeApplicationId = 0x53504144;

export interface OpenDatabaseOptions {
  /** Open for reading only: no migration, and writes fail. The file must exist. Defaults to false. */
  readonly?: boolean;
  /** How long a statement waits for another connection's write lock, in ms. Defaults to 5000. */
  busyTimeoutMs?: number;
  /** Files up to this size get SQLite's `quick_check` at open, so damage is named before it is read. Defaults to 1 GiB. */
  checkUpToBytes?: number;
  /**
   * Path of a better-sqlite3 build for the runtime this engine runs in (better-sqlite3's
   * `nativeBinding` option): the Electron shell passes the build made for Electron, which sits
   * apart from the Node build the CLI loads. Defaults to the SPADE_SQLITE_BINDING environment
   * variable, else better-sqlite3's own build.
   */
  nativeBinding?: string;
}

/**
 * Opens (creating when needed) a workspace database: WAL journal, foreign keys on, a busy timeout,
 * and the schema migrated to the latest version. A file that is empty (read-only), not SQLite, or
 * another application's database fails with `DatabaseOpenError`; a damaged one with
 * `DatabaseDamagedError` (naming the page); a newer schema with `DatabaseVersionError`.
 *
 * A read-only open leaves no `-wal`/`-shm` files behind: where the file is writable it is opened
 * with writes refused (`query_only`), so that closing the last connection cleans up as a writer's
 * close does; only a file we may not write is opened with SQLite's read-only flag.
 */
export function openDatabase(path: string, options: OpenDatabaseOptions & { readonly: true }): ReadonlyDb;
export function openDatabase(path: string, options?: OpenDatabaseOptions & { readonly?: false }): WritableDb;
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): ReadonlyDb | WritableDb {
  const readonly = options.readonly ?? false;
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new TypeError(`openDatabase: busyTimeoutMs must be a non-negative integer, got ${busyTimeoutMs}`);
  }
  const nativeBinding = options.nativeBinding ?? (process.env.SPADE_SQLITE_BINDING || undefined);
  if (readonly && !existsSync(path)) throw new NotAWorkspaceError(path, "the file does not exist");
  const size = path === ":memory:" || !existsSync(path) ? 0 : statSync(path).size;
  if (readonly && size === 0) throw new NotAWorkspaceError(path, "the file is empty (0 bytes), not a workspace: point --db at a workspace, or delete the file");
  let db: BetterSqlite3.Database;
  try {
    if (!readonly && path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    const binding = nativeBinding ? { nativeBinding } : {};
    db = readonly ? openForReading(path, binding) : new BetterSqlite3(path, binding);
  } catch (error) {
    throw new DatabaseOpenError(path, describeBindingError(error, nativeBinding), { cause: error });
  }
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    if (size > 0 && size <= (options.checkUpToBytes ?? 2 ** 30)) checkIntact(db, path);
    checkApplication(db, path);
    db.pragma("foreign_keys = ON");
    if (readonly) {
      const found = readSchemaVersion(db);
      if (found !== schemaVersion) throw new DatabaseVersionError(path, found, schemaVersion);
      return db as ReadonlyDb;
    }
    db.pragma("journal_mode = WAL");
    // With WAL, NORMAL never corrupts and loses no committed transaction when the process dies
    // (only on an OS crash or power loss): the safety kill -9 resume needs, at a fraction of FULL's cost.
    db.pragma("synchronous = NORMAL");
    migrateDatabase(db as WritableDb, path);
    if (Number(db.pragma("application_id", { simple: true })) === 0) db.pragma(`application_id = ${spadeApplicationId}`);
    return db as WritableDb;
  } catch (error) {
    db.close();
    if (error instanceof DatabaseVersionError || error instanceof DatabaseOpenError || error instanceof DatabaseDamagedError) throw error;
    const code = (error as { code?: string }).code;
    if (code === "SQLITE_NOTADB") throw new NotAWorkspaceError(path, "the file is not a SQLite database", { cause: error });
    if (code?.startsWith("SQLITE_CORRUPT")) throw new DatabaseDamagedError(path, describe(error), { cause: error });
    throw new DatabaseOpenError(path, describe(error), { cause: error });
  }
}

/** Opens an existing file for reading: writable-but-query-only where we may write it (see openDatabase). */
function openForReading(path: string, binding: { nativeBinding?: string }): BetterSqlite3.Database {
  let db: BetterSqlite3.Database;
  try {
    db = new BetterSqlite3(path, { fileMustExist: true, ...binding });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== "SQLITE_READONLY" && code !== "SQLITE_CANTOPEN" && code !== "SQLITE_PERM") throw error;
    return new BetterSqlite3(path, { readonly: true, fileMustExist: true, ...binding });
  }
  db.pragma("query_only = ON");
  return db;
}

/** SQLite's `quick_check`: a damaged file is refused with the first problem it names (usually a page). */
function checkIntact(db: BetterSqlite3.Database, path: string): void {
  let problems: string[];
  try {
    problems = (db.pragma("quick_check(5)") as { quick_check: string }[]).map((row) => row.quick_check);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "SQLITE_NOTADB") throw error;
    throw new DatabaseDamagedError(path, describe(error), { cause: error });
  }
  if (problems.length === 1 && problems[0] === "ok") return;
  const lines = problems.flatMap((text) => text.split("\n")).filter((line) => line.trim() !== "" && !line.startsWith("***"));
  throw new DatabaseDamagedError(path, lines.slice(0, 3).join("; ") + (lines.length > 3 ? "; ..." : ""));
}

/** Refuses another application's SQLite file before we add tables to it. */
function checkApplication(db: BetterSqlite3.Database, path: string): void {
  const applicationId = Number(db.pragma("application_id", { simple: true }));
  if (applicationId === spadeApplicationId) return;
  if (applicationId !== 0) {
    throw new NotAWorkspaceError(path, `it is another application's SQLite database (application_id ${applicationId})`);
  }
  if (readSchemaVersion(db) !== 0) return;
  const tables = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name LIMIT 5")
    .pluck()
    .all() as string[];
  if (tables.length > 0) {
    throw new NotAWorkspaceError(path, `it is a SQLite database but not a SPADE workspace (it has tables ${tables.join(", ")})`);
  }
}

/** A native module built for another runtime gets a message saying which build to make. */
function describeBindingError(error: unknown, nativeBinding: string | undefined): string {
  const message = describe(error);
  if (!/NODE_MODULE_VERSION|compiled against a different Node\.js version|Cannot find module .*better_sqlite3/i.test(message)) return message;
  const runtime = process.versions.electron ? `Electron ${process.versions.electron}` : `Node ${process.versions.node}`;
  const which = nativeBinding ? `the better-sqlite3 build at ${nativeBinding}` : "better-sqlite3's default build (made for the Node that ran npm ci)";
  return `${message}\n${which} does not load in ${runtime} (ABI ${process.versions.modules}): build one for this runtime with \`node main/install/nativeBinding.mjs ${process.versions.electron ? "electron" : "node " + process.execPath}\` and pass it in SPADE_SQLITE_BINDING`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
