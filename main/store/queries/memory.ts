import type { ReadonlyDb, WritableDb } from "../DatabaseHandle.js";
import { toFlag } from "../json.js";
import { statement } from "../statement.js";

/** How much of an environment's code a memory entry keeps (what the designer prompt shows). */
export const memoryExcerptChars = 2000;

/** An environment in (or once in) a run's memory, with its curation flags. */
export interface MemoryEntry {
  environmentId: number;
  runId: number | null;
  skill: string | null;
  /** The first 2000 characters of the code. */
  codeExcerpt: string | null;
  winRate: number | null;
  regret: number | null;
  iteration: number | null;
  /** Never evicted. */
  pinned: boolean;
  /** Out of memory for good: `addToMemory` refuses it. */
  banned: boolean;
  /** true while an entry; false once evicted or banned. */
  inMemory: boolean;
  addedAt: number;
  evictedAt: number | null;
}

export interface NewMemoryEntry {
  environmentId: number;
  runId: number | null;
  skill?: string | null;
  /** The full code; the entry keeps its first 2000 characters. */
  code: string | null;
  winRate?: number | null;
  regret?: number | null;
  iteration?: number | null;
  /** Defaults to false. */
  pinned?: boolean;
}

export interface ListMemoryOptions {
  /** Only current entries (not evicted or banned ones). Defaults to false. */
  inMemoryOnly?: boolean;
}

interface MemoryRow {
  environment_id: number;
  run_id: number | null;
  skill: string | null;
  code_excerpt: string | null;
  win_rate: number | null;
  regret: number | null;
  iteration: number | null;
  pinned: number;
  banned: number;
  in_memory: number;
  added_at: number;
  evicted_at: number | null;
}

function toEntry(row: MemoryRow): MemoryEntry {
  return {
    environmentId: row.environment_id,
    runId: row.run_id,
    skill: row.skill,
    codeExcerpt: row.code_excerpt,
    winRate: row.win_rate,
    regret: row.regret,
    iteration: row.iteration,
    pinned: row.pinned === 1,
    banned: row.banned === 1,
    inMemory: row.in_memory === 1,
    addedAt: row.added_at,
    evictedAt: row.evicted_at,
  };
}

/**
 * Puts an environment into memory (back in, if it was evicted: it then counts as newly added).
 * Returns false, changing nothing, when the environment is banned.
 */
export function addToMemory(db: WritableDb, entry: NewMemoryEntry): boolean {
  const result = statement(
    db,
    `INSERT INTO memory (environment_id, run_id, skill, code_excerpt, win_rate, regret, iteration, pinned, banned, in_memory, added_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 1, ?)
     ON CONFLICT (environment_id) DO UPDATE SET run_id = excluded.run_id, skill = excluded.skill,
       code_excerpt = excluded.code_excerpt, win_rate = excluded.win_rate, regret = excluded.regret,
       iteration = excluded.iteration, pinned = max(memory.pinned, excluded.pinned),
       added_at = CASE WHEN memory.in_memory = 1 THEN memory.added_at ELSE excluded.added_at END,
       in_memory = 1, evicted_at = NULL
     WHERE memory.banned = 0`,
  ).run(
    entry.environmentId,
    entry.runId,
    entry.skill ?? null,
    entry.code === null ? null : entry.code.slice(0, memoryExcerptChars),
    entry.winRate ?? null,
    entry.regret ?? null,
    entry.iteration ?? null,
    toFlag(entry.pinned ?? false),
    Date.now(),
  );
  return result.changes === 1;
}

/**
 * Evicts the oldest unpinned entries of the run until at most `capacity` remain; pinned entries
 * always stay (so a memory of many pinned entries may stay above capacity). Returns the evicted
 * environment ids, oldest first. "Oldest" is by time added, then iteration, then id.
 */
export function evictOldestUnpinned(db: WritableDb, runId: number, capacity: number): number[] {
  if (!Number.isInteger(capacity) || capacity < 0) throw new TypeError(`evictOldestUnpinned: capacity must be a non-negative integer, got ${capacity}`);
  return db.transaction(() => {
    const size = statement(db, `SELECT count(*) AS n FROM memory WHERE run_id = ? AND in_memory = 1`).get(runId) as { n: number };
    const excess = size.n - capacity;
    if (excess <= 0) return [];
    const ids = (
      statement(
        db,
        `SELECT environment_id FROM memory WHERE run_id = ? AND in_memory = 1 AND pinned = 0
         ORDER BY added_at, iteration, environment_id LIMIT ?`,
      ).all(runId, excess) as { environment_id: number }[]
    ).map((row) => row.environment_id);
    const evict = statement(db, `UPDATE memory SET in_memory = 0, evicted_at = ? WHERE environment_id = ?`);
    const now = Date.now();
    for (const id of ids) evict.run(now, id);
    return ids;
  }).immediate();
}

/** The run's memory entries, oldest first. */
export function listMemory(db: ReadonlyDb, runId: number, options: ListMemoryOptions = {}): MemoryEntry[] {
  const sql = options.inMemoryOnly
    ? `SELECT * FROM memory WHERE run_id = ? AND in_memory = 1 ORDER BY added_at, iteration, environment_id`
    : `SELECT * FROM memory WHERE run_id = ? ORDER BY added_at, iteration, environment_id`;
  return (statement(db, sql).all(runId) as MemoryRow[]).map(toEntry);
}

export function getMemoryEntry(db: ReadonlyDb, environmentId: number): MemoryEntry | null {
  const row = statement(db, `SELECT * FROM memory WHERE environment_id = ?`).get(environmentId) as MemoryRow | undefined;
  return row ? toEntry(row) : null;
}

/**
 * Pins or unpins a memory entry. Pinning an evicted entry brings it back (a banned one stays out).
 * Returns false when the environment has no memory entry (add it with `addToMemory` first).
 */
export function setPinned(db: WritableDb, environmentId: number, pinned: boolean): boolean {
  if (!pinned) return statement(db, `UPDATE memory SET pinned = 0 WHERE environment_id = ?`).run(environmentId).changes === 1;
  const result = statement(
    db,
    `UPDATE memory SET pinned = 1,
       added_at = CASE WHEN in_memory = 0 AND banned = 0 THEN ? ELSE added_at END,
       evicted_at = CASE WHEN banned = 0 THEN NULL ELSE evicted_at END,
       in_memory = CASE WHEN banned = 0 THEN 1 ELSE in_memory END
     WHERE environment_id = ?`,
  ).run(Date.now(), environmentId);
  return result.changes === 1;
}

/**
 * Bans an environment from memory for good (out now, unpinned, never re-added), or lifts the ban
 * (it stays out until added again). Works for environments never in memory too: the entry is
 * created from the stored environment and its statistics. Returns false when the environment does not exist.
 */
export function setBanned(db: WritableDb, environmentId: number, banned: boolean): boolean {
  return db.transaction(() => {
    const now = Date.now();
    if (banned) {
      statement(
        db,
        `INSERT OR IGNORE INTO memory (environment_id, run_id, skill, code_excerpt, win_rate, regret, iteration, pinned, banned,
           in_memory, added_at, evicted_at)
         SELECT e.id, e.run_id, e.skill, substr(e.code, 1, ${memoryExcerptChars}), s.win_rate, s.regret, e.iteration, 0, 1, 0, ?, ?
         FROM environments e LEFT JOIN env_stats s ON s.environment_id = e.id WHERE e.id = ?`,
      ).run(now, now, environmentId);
      return (
        statement(
          db,
          `UPDATE memory SET banned = 1, pinned = 0, in_memory = 0, evicted_at = coalesce(evicted_at, ?) WHERE environment_id = ?`,
        ).run(now, environmentId).changes === 1
      );
    }
    return statement(db, `UPDATE memory SET banned = 0 WHERE environment_id = ?`).run(environmentId).changes === 1;
  }).immediate();
}
