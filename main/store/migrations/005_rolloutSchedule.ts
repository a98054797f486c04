import type { Migration } from "./Migration.js";

/**
 * The reference schedule: games are replayed in the rollouts after the one that generated them
 * (episodes record their rollout), the delayed designer reward stores its skill-centred advantage
 * and whether it was masked, and the loop keeps notes on what it changed (a trimmed document).
 */
export const rolloutScheduleMigration: Migration = {
  version: 5,
  name: "rollout schedule",
  up(db) {
    db.exec(`
      ALTER TABLE episodes ADD COLUMN rollout INTEGER;
      ALTER TABLE env_stats ADD COLUMN designer_advantage REAL;
      ALTER TABLE env_stats ADD COLUMN designer_masked INTEGER CHECK (designer_masked IN (0, 1));
      CREATE TABLE run_notes (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        iteration INTEGER,
        kind TEXT NOT NULL,
        text TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (run_id, kind, iteration)
      );
    `);
  },
};
