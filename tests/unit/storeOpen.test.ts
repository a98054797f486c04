import BetterSqlite3 from "better-sqlite3";
import { existsSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { DatabaseDamagedError } from "../../main/store/DatabaseDamagedError.js";
import { DatabaseOpenError } from "../../main/store/DatabaseOpenError.js";
import { NotAWorkspaceError } from "../../main/store/NotAWorkspaceError.js";
import { DatabaseVersionError } from "../../main/store/DatabaseVersionError.js";
import { migrateDatabase, readSchemaVersion, schemaVersion } from "../../main/store/migrateDatabase.js";
import type { Migration } from "../../main/store/migrations/Migration.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { createRun, getRun, listRuns } from "../../main/store/queries/runs.js";
import { transaction } from "../../main/store/transaction.js";

const dirs: string[] = [];
function tempPath(name = "workspace.sqlite"): string {
  const dir = mkdtempSync(join(tmpdir(), "spade-store-open-"));
  dirs.push(dir);
  return join(dir, name);
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("openDatabase", () => {
  it("creates a migrated WAL database with foreign keys on, in a folder it creates", () => {
    const path = join(tempPath(), "..", "nested", "ws.sqlite");
    const db = openDatabase(path);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(Number(db.pragma("busy_timeout", { simple: true }))).toBe(5000);
    expect(readSchemaVersion(db)).toBe(schemaVersion);
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(
      expect.arrayContaining(["runs", "iterations", "documents", "environments", "hints", "episodes", "turns", "env_stats", "memory", "metrics", "adapters", "eval_results", "env_sets", "env_set_members"]),
    );
    db.close();
  });

  it("keeps data across reopenings and migrates only once", () => {
    const path = tempPath();
    const db = openDatabase(path);
    createRun(db, { name: "first", seed: 7, config: { iterations: 2 } });
    db.close();
    const again = openDatabase(path);
    expect(listRuns(again).map((run) => [run.name, run.seed, run.config])).toEqual([["first", 7, { iterations: 2 }]]);
    again.close();
  });

  it("enforces foreign keys", () => {
    const db = openDatabase(tempPath());
    expect(() => db.prepare("INSERT INTO iterations (run_id, iteration, started_at) VALUES (42, 0, 0)").run()).toThrow(/FOREIGN KEY/);
    db.close();
  });

  it("refuses a database written by a newer app with DatabaseVersionError", () => {
    const path = tempPath();
    openDatabase(path).close();
    const raw = new BetterSqlite3(path);
    raw.pragma(`user_version = ${schemaVersion + 1}`);
    raw.close();
    expect(() => openDatabase(path)).toThrow(DatabaseVersionError);
    expect(() => openDatabase(path)).toThrow(new RegExp(`schema version ${schemaVersion + 1}, newer than the ${schemaVersion}`));
    expect(() => openDatabase(path, { readonly: true })).toThrow(DatabaseVersionError);
  });

  it("names the path when the file is not SQLite", () => {
    const path = tempPath("notes.sqlite");
    writeFileSync(path, "this is a text file, not a database\n".repeat(40));
    expect(() => openDatabase(path)).toThrow(DatabaseOpenError);
    expect(() => openDatabase(path)).toThrow(NotAWorkspaceError); // the CLI's exit 2
    expect(() => openDatabase(path)).toThrow(`cannot open workspace database ${path}: the file is not a SQLite database`);
  });

  it("refuses another application's SQLite file instead of adding tables to it", () => {
    const path = tempPath("other.sqlite");
    const raw = new BetterSqlite3(path);
    raw.exec("CREATE TABLE contacts (name TEXT)");
    raw.close();
    expect(() => openDatabase(path)).toThrow(/not a SPADE workspace \(it has tables contacts\)/);
    const tagged = new BetterSqlite3(path);
    tagged.pragma("application_id = 1234");
    tagged.close();
    expect(() => openDatabase(path)).toThrow(/another application's SQLite database \(application_id 1234\)/);
  });

  it("opens read-only handles that read but cannot write", () => {
    const path = tempPath();
    const db = openDatabase(path);
    const run = createRun(db, { name: "r" });
    const reader = openDatabase(path, { readonly: true });
    expect(getRun(reader, run.id)?.name).toBe("r");
    expect(() => reader.prepare("DELETE FROM runs").run()).toThrow(/readonly|query_only/);
    reader.close();
    db.close();
  });

  it("refuses a read-only open of a missing file or of an unmigrated one", () => {
    const missing = tempPath("missing.sqlite");
    expect(() => openDatabase(missing, { readonly: true })).toThrow(`cannot open workspace database ${missing}: the file does not exist`);
    const empty = tempPath("empty.sqlite");
    writeFileSync(empty, "");
    expect(() => openDatabase(empty, { readonly: true })).toThrow(`cannot open workspace database ${empty}: the file is empty (0 bytes), not a workspace`);
  });

  it("leaves no -wal or -shm file behind a read-only open", () => {
    const path = tempPath();
    const writer = openDatabase(path);
    createRun(writer, { name: "r" });
    writer.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    const reader = openDatabase(path, { readonly: true });
    expect(listRuns(reader)).toHaveLength(1);
    reader.close();
    expect([existsSync(`${path}-wal`), existsSync(`${path}-shm`)]).toEqual([false, false]);
  });

  it("names a damaged workspace and the page SQLite found damaged, for reading and for writing", () => {
    const path = tempPath();
    const writer = openDatabase(path);
    for (let i = 0; i < 30; i++) createRun(writer, { name: `run ${i}` });
    const root = (writer.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'runs'").get() as { rootpage: number }).rootpage;
    const pageSize = Number(writer.pragma("page_size", { simple: true }));
    writer.close();
    // Overwrite the cell pointers of the runs table's page: its cells now point past the page's end.
    const fd = openSync(path, "r+");
    writeSync(fd, Buffer.from(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? 0x0f : 0xf0))), 0, 12, (root - 1) * pageSize + 8);
    closeSync(fd);
    for (const readonly of [true, false]) {
      const open = () => (readonly ? openDatabase(path, { readonly: true }) : openDatabase(path));
      expect(open).toThrow(DatabaseDamagedError);
      expect(open).toThrow(new RegExp(`workspace database .* is damaged \\(Tree ${root} page ${root} cell \\d+`));
    }
    expect([existsSync(`${path}-wal`), existsSync(`${path}-shm`)]).toEqual([false, false]);
  });

  it("rejects a bad busy timeout", () => {
    expect(() => openDatabase(tempPath(), { busyTimeoutMs: -1 })).toThrow(/busyTimeoutMs must be a non-negative integer, got -1/);
  });
});

describe("migrateDatabase", () => {
  const create = (version: number, table: string, fail = false): Migration => ({
    version,
    name: `create ${table}`,
    up(db) {
      db.exec(`CREATE TABLE ${table} (x INTEGER)`);
      if (fail) throw new Error("migration failed half-way");
    },
  });

  it("applies pending migrations in order and records the version", () => {
    const db = new BetterSqlite3(":memory:") as WritableDb;
    expect(migrateDatabase(db, ":memory:", [create(1, "a")])).toBe(1);
    expect(migrateDatabase(db, ":memory:", [create(1, "a"), create(2, "b")])).toBe(2);
    expect(db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").pluck().all()).toEqual(["a", "b"]);
  });

  it("rolls a failing migration back entirely and keeps the earlier version", () => {
    const db = new BetterSqlite3(":memory:") as WritableDb;
    expect(() => migrateDatabase(db, ":memory:", [create(1, "a"), create(2, "b", true)])).toThrow("migration failed half-way");
    expect(readSchemaVersion(db)).toBe(1);
    expect(db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all()).toEqual(["a"]);
  });

  it("refuses migration lists that are not numbered 1, 2, 3, ...", () => {
    const db = new BetterSqlite3(":memory:") as WritableDb;
    expect(() => migrateDatabase(db, ":memory:", [create(1, "a"), create(3, "c")])).toThrow(/has version 3; expected 2/);
  });
});

describe("transaction", () => {
  it("commits everything or nothing", () => {
    const db = openDatabase(tempPath());
    expect(() =>
      transaction(db, () => {
        createRun(db, { name: "lost" });
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(listRuns(db)).toEqual([]);
    transaction(db, () => {
      createRun(db, { name: "a" });
      createRun(db, { name: "b" });
    });
    expect(listRuns(db).map((run) => run.name)).toEqual(["b", "a"]);
    db.close();
  });

  it("holds the write lock from its start: another connection's commit cannot make it fail between its read and its write", () => {
    const path = tempPath();
    const engine = openDatabase(path);
    // Another process on the same workspace (spade serve pausing the run), with a short wait for the lock.
    const server = openDatabase(path, { busyTimeoutMs: 50 });
    let serverWrote: boolean | null = null;
    transaction(engine, () => {
      listRuns(engine);
      try {
        createRun(server, { name: "from the server" });
        serverWrote = true;
      } catch {
        serverWrote = false; // waited for the lock the transaction holds
      }
      createRun(engine, { name: "from the engine" });
    });
    expect(serverWrote).toBe(false);
    expect(listRuns(engine).map((run) => run.name)).toEqual(["from the engine"]);
    server.close();
    engine.close();
  });
});
