// Queries the workbench UI needs beyond the domain modules: counts for paging, and taking an
// environment out of memory by hand.
import type { ReadonlyDb, WritableDb } from "../DatabaseHandle.js";
import { likePattern } from "../likePattern.js";
import { statement } from "../statement.js";

/** How many stored documents match `search` (title or text, case-insensitive); all when absent. */
export function countDocuments(db: ReadonlyDb, search?: string): number {
  if (!search) return statement(db, `SELECT count(*) FROM documents`).pluck().get() as number;
  const pattern = likePattern(search);
  return statement(db, `SELECT count(*) FROM documents WHERE title LIKE ? ESCAPE '\\' OR text LIKE ? ESCAPE '\\'`).pluck().get(pattern, pattern) as number;
}

/** Per run: environments stored and how many are valid (the runs list). */
export function environmentCountsByRun(db: ReadonlyDb): Map<number, { total: number; valid: number }> {
  const rows = statement(db, `SELECT run_id, count(*) AS total, sum(valid) AS valid FROM environments WHERE run_id IS NOT NULL GROUP BY run_id`).all() as {
    run_id: number;
    total: number;
    valid: number | null;
  }[];
  return new Map(rows.map((row) => [row.run_id, { total: row.total, valid: row.valid ?? 0 }]));
}

/** Takes an entry out of memory (unpinned, evicted now); false when the environment has no entry. */
export function removeFromMemory(db: WritableDb, environmentId: number): boolean {
  return statement(db, `UPDATE memory SET in_memory = 0, pinned = 0, evicted_at = coalesce(evicted_at, ?) WHERE environment_id = ?`).run(Date.now(), environmentId).changes === 1;
}
