import type { Migration } from "./Migration.js";

/** Designer attempts and written hints record the adapter they were sampled with, as episodes do. */
export const sampledAdapterMigration: Migration = {
  version: 2,
  name: "sampled adapter",
  up(db) {
    db.exec(`
      ALTER TABLE environments ADD COLUMN adapter TEXT;
      ALTER TABLE hints ADD COLUMN adapter TEXT;
    `);
  },
};
