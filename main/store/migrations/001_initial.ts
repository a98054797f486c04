import type { Migration } from "./Migration.js";

// Timestamps are INTEGER milliseconds since the Unix epoch; booleans are INTEGER 0/1; columns named
// in the comments as JSON hold JSON text. Every table is documented in main/store/README.md.
const schema = `
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL DEFAULT '',
  config TEXT NOT NULL DEFAULT '{}', -- JSON
  seed INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'running'
    CHECK (status IN ('running', 'paused', 'stopped', 'failed', 'completed')),
  error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  finished_at INTEGER,
  iterations_completed INTEGER NOT NULL DEFAULT 0,
  owner_pid INTEGER,
  owner_heartbeat INTEGER
);

CREATE TABLE iterations (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed')),
  PRIMARY KEY (run_id, iteration)
) WITHOUT ROWID;

CREATE TABLE documents (
  id TEXT PRIMARY KEY,
  corpus TEXT NOT NULL,
  title TEXT,
  text TEXT NOT NULL,
  words INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE environments (
  id INTEGER PRIMARY KEY,
  run_id INTEGER REFERENCES runs(id) ON DELETE CASCADE,
  iteration INTEGER,
  slot INTEGER,
  attempt INTEGER,
  parent_id INTEGER REFERENCES environments(id) ON DELETE SET NULL,
  source TEXT NOT NULL CHECK (source IN ('designer', 'repair', 'edit', 'import', 'fixed')),
  document_id TEXT REFERENCES documents(id),
  skill TEXT,
  difficulty TEXT,
  prompt TEXT, -- JSON ChatMessage[]
  raw_reply TEXT,
  code TEXT,
  code_sha256 TEXT,
  class_name TEXT,
  valid INTEGER NOT NULL DEFAULT 0 CHECK (valid IN (0, 1)),
  validation TEXT, -- JSON ValidationReport
  validation_error TEXT,
  novelty TEXT CHECK (novelty IN ('novel', 'duplicate')),
  duplicate_of INTEGER REFERENCES environments(id) ON DELETE SET NULL,
  tokens INTEGER,
  created_at INTEGER NOT NULL
);
-- Resume idempotence: one row per attempt of a run's slot.
CREATE UNIQUE INDEX environments_attempt ON environments(run_id, iteration, slot, attempt)
  WHERE source IN ('designer', 'repair', 'fixed');
CREATE INDEX environments_run_valid ON environments(run_id, valid, iteration);
CREATE INDEX environments_sha ON environments(code_sha256);
CREATE INDEX environments_document ON environments(document_id);
CREATE INDEX environments_parent ON environments(parent_id);

CREATE TABLE hints (
  id INTEGER PRIMARY KEY,
  environment_id INTEGER NOT NULL UNIQUE REFERENCES environments(id) ON DELETE CASCADE,
  source TEXT NOT NULL CHECK (source IN ('env', 'writer', 'import', 'edit')),
  text TEXT NOT NULL,
  prompt TEXT, -- JSON ChatMessage[]
  raw_reply TEXT,
  created_at INTEGER NOT NULL
);

CREATE TABLE episodes (
  id INTEGER PRIMARY KEY,
  run_id INTEGER REFERENCES runs(id) ON DELETE CASCADE,
  environment_id INTEGER NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  hinted INTEGER NOT NULL CHECK (hinted IN (0, 1)),
  play_index INTEGER NOT NULL,
  canary INTEGER NOT NULL DEFAULT 0 CHECK (canary IN (0, 1)),
  seed INTEGER,
  "return" REAL NOT NULL,
  turns INTEGER NOT NULL,
  total_tokens INTEGER,
  adapter TEXT,
  error TEXT,
  timed_out INTEGER NOT NULL DEFAULT 0 CHECK (timed_out IN (0, 1)),
  first_observation TEXT,
  reset_info TEXT, -- JSON
  started_at INTEGER,
  finished_at INTEGER,
  UNIQUE (environment_id, hinted, play_index, canary)
);
CREATE INDEX episodes_run ON episodes(run_id);

-- messages: the turn's prompt, stored compactly (see queries/episodes.ts):
--   NULL = the previous turn's prompt + its reply (assistant) + its observation (user);
--   otherwise JSON of the messages that follow the first messages_prefix messages of the previous turn's prompt.
CREATE TABLE turns (
  episode_id INTEGER NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  messages TEXT,
  messages_prefix INTEGER NOT NULL DEFAULT 0,
  raw_reply TEXT,
  reasoning TEXT,
  action TEXT,
  observation TEXT,
  reward REAL,
  terminated INTEGER NOT NULL DEFAULT 0,
  truncated INTEGER NOT NULL DEFAULT 0,
  info TEXT, -- JSON
  token_ids BLOB, -- Int32 little-endian
  token_probs BLOB, -- Float32 little-endian
  latency_ms REAL,
  prompt_tokens INTEGER,
  completion_tokens INTEGER,
  PRIMARY KEY (episode_id, idx)
);

CREATE TABLE env_stats (
  environment_id INTEGER PRIMARY KEY REFERENCES environments(id) ON DELETE CASCADE,
  plays INTEGER NOT NULL DEFAULT 0,
  hint_plays INTEGER NOT NULL DEFAULT 0,
  win_rate REAL,
  hint_win_rate REAL,
  mean_return REAL,
  hint_mean_return REAL,
  regret REAL,
  designer_reward REAL,
  reward_kind TEXT,
  step_timeouts INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL
);
CREATE INDEX env_stats_regret ON env_stats(regret);
CREATE INDEX env_stats_win_rate ON env_stats(win_rate);

CREATE TABLE memory (
  environment_id INTEGER PRIMARY KEY REFERENCES environments(id) ON DELETE CASCADE,
  run_id INTEGER REFERENCES runs(id) ON DELETE CASCADE,
  skill TEXT,
  code_excerpt TEXT,
  win_rate REAL,
  regret REAL,
  iteration INTEGER,
  pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
  banned INTEGER NOT NULL DEFAULT 0 CHECK (banned IN (0, 1)),
  in_memory INTEGER NOT NULL DEFAULT 1 CHECK (in_memory IN (0, 1)),
  added_at INTEGER NOT NULL,
  evicted_at INTEGER
);
CREATE INDEX memory_run ON memory(run_id, in_memory, added_at);

-- A metric is a number (value) or, for histograms and other structured values, JSON (json); both
-- NULL means the metric was measured as missing (a gap, not a zero).
CREATE TABLE metrics (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  name TEXT NOT NULL,
  value REAL,
  json TEXT,
  PRIMARY KEY (run_id, iteration, name)
) WITHOUT ROWID;

CREATE TABLE adapters (
  id INTEGER PRIMARY KEY,
  run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
  parent_id INTEGER REFERENCES adapters(id) ON DELETE SET NULL,
  name TEXT NOT NULL UNIQUE,
  path TEXT NOT NULL,
  base_model_sha256 TEXT,
  manifest TEXT, -- JSON
  trainer_command TEXT,
  log TEXT,
  metrics TEXT, -- JSON
  status TEXT NOT NULL DEFAULT 'ready',
  created_at INTEGER NOT NULL
);
CREATE INDEX adapters_run ON adapters(run_id);

CREATE TABLE eval_results (
  id INTEGER PRIMARY KEY,
  adapter_id INTEGER REFERENCES adapters(id) ON DELETE CASCADE, -- NULL = the base model
  suite TEXT NOT NULL,
  n INTEGER NOT NULL,
  correct INTEGER,
  accuracy REAL,
  mean_return REAL,
  win_rate REAL,
  items TEXT, -- JSON
  created_at INTEGER NOT NULL
);
CREATE INDEX eval_results_adapter ON eval_results(adapter_id, suite);

CREATE TABLE env_sets (
  name TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL
);

CREATE TABLE env_set_members (
  set_name TEXT NOT NULL REFERENCES env_sets(name) ON DELETE CASCADE,
  code_sha256 TEXT NOT NULL,
  environment_id INTEGER REFERENCES environments(id) ON DELETE SET NULL,
  class_name TEXT,
  code TEXT NOT NULL,
  hint TEXT,
  skill TEXT,
  win_rate REAL,
  hint_win_rate REAL,
  regret REAL,
  source TEXT NOT NULL,
  PRIMARY KEY (set_name, code_sha256)
);
`;

/** The first schema: every table of issue 4 §1 plus the training (5) and experiment (7) tables. */
export const initialMigration: Migration = {
  version: 1,
  name: "initial",
  up(db) {
    db.exec(schema);
  },
};
