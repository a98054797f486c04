import type { Migration } from "./Migration.js";

/**
 * Training inside the run: one row per training round, and the token-exact record of what was
 * sampled (prompt token ids as evaluated, completion token ids, each sampled token's log-prob under
 * the distribution it was sampled from, and the sampling settings) for agent turns, designer
 * attempts and written hints. Log-probs are Float64 little-endian blobs, token ids Int32.
 */
export const trainingRoundsMigration: Migration = {
  version: 4,
  name: "training rounds",
  up(db) {
    db.exec(`
      CREATE TABLE training_rounds (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        round INTEGER NOT NULL,
        after_iteration INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'rejected')),
        adapter_id INTEGER REFERENCES adapters(id) ON DELETE SET NULL,
        parent_adapter_id INTEGER REFERENCES adapters(id) ON DELETE SET NULL,
        metrics TEXT, -- JSON
        started_at INTEGER NOT NULL,
        finished_at INTEGER,
        PRIMARY KEY (run_id, round),
        UNIQUE (run_id, after_iteration)
      );
      ALTER TABLE turns ADD COLUMN prompt_token_ids BLOB;
      ALTER TABLE turns ADD COLUMN token_logprobs BLOB;
      ALTER TABLE turns ADD COLUMN sampling TEXT;
      ALTER TABLE environments ADD COLUMN prompt_token_ids BLOB;
      ALTER TABLE environments ADD COLUMN token_ids BLOB;
      ALTER TABLE environments ADD COLUMN token_logprobs BLOB;
      ALTER TABLE environments ADD COLUMN sampling TEXT;
      ALTER TABLE hints ADD COLUMN prompt_token_ids BLOB;
      ALTER TABLE hints ADD COLUMN token_ids BLOB;
      ALTER TABLE hints ADD COLUMN token_logprobs BLOB;
      ALTER TABLE hints ADD COLUMN sampling TEXT;
    `);
  },
};
