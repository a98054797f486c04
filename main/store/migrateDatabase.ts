import type { WritableDb } from "./DatabaseHandle.js";
import { DatabaseVersionError } from "./DatabaseVersionError.js";
import { allMigrations } from "./migrations/allMigrations.js";
import type { Migration } from "./migrations/Migration.js";

/** The schema version this app writes: the last migration's. */
export const schemaVersion = latestVersion(allMigrations);

/** The schema version recorded in the database (`PRAGMA user_version`; 0 for a new file). */
export function readSchemaVersion(db: { pragma(source: string, options: { simple: true }): unknown }): number {
  return Number(db.pragma("user_version", { simple: true }));
}

/**
 * Brings the database to the latest schema: each pending migration runs in its own IMMEDIATE
 * transaction that also records its version, so a crash leaves a consistent earlier version and
 * two processes opening the same new file do not both migrate. A database from a newer app is refused.
 */
export function migrateDatabase(db: WritableDb, path: string, migrations: readonly Migration[] = allMigrations): number {
  const latest = latestVersion(migrations);
  const found = readSchemaVersion(db);
  if (found > latest) throw new DatabaseVersionError(path, found, latest);
  for (const migration of migrations) {
    if (migration.version <= found) continue;
    db.transaction(() => {
      const current = readSchemaVersion(db);
      if (current > latest) throw new DatabaseVersionError(path, current, latest);
      if (current >= migration.version) return;
      migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
  return readSchemaVersion(db);
}

function latestVersion(migrations: readonly Migration[]): number {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(`migration "${migration.name}" has version ${migration.version}; expected ${index + 1} (versions are 1, 2, 3, ... in order)`);
    }
  });
  return migrations.length;
}
