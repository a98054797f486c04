import type { Migration } from "./Migration.js";

/** The lock records its holder's start time too, so a pid reused by another process is not taken for the holder. */
export const runOwnerStartMigration: Migration = {
  version: 3,
  name: "run owner start time",
  up(db) {
    db.exec(`ALTER TABLE runs ADD COLUMN owner_started TEXT;`);
  },
};
