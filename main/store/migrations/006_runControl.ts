import type { Migration } from "./Migration.js";

/**
 * Runs are controlled and watched from any process of the workspace: a pause or stop asked by a
 * process that does not own the run waits in `control_request` until the owner picks it up at its
 * next unit of work, and the owner keeps its live progress (phase, unit counts, time left) in
 * `progress` so a window in another process shows it.
 */
export const runControlMigration: Migration = {
  version: 6,
  name: "run control requests and live progress",
  up(db) {
    db.exec(`
      ALTER TABLE runs ADD COLUMN control_request TEXT CHECK (control_request IN ('pause', 'stop'));
      ALTER TABLE runs ADD COLUMN progress TEXT;
    `);
  },
};
