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

/** A designer attempt's outcome for the run diagnosis: validity, error and the first failing check's name (warnings aside). */
export interface AttemptOutcomeRow {
  valid: boolean;
  error: string | null;
  failedCheck: string | null;
}

/** The run's newest `limit` designer attempts (designer, repair and fixed draws; not hand edits), newest first. */
export function listAttemptOutcomes(db: ReadonlyDb, runId: number, limit: number): AttemptOutcomeRow[] {
  const rows = statement(
    db,
    `SELECT e.valid, e.validation_error,
       (SELECT json_extract(c.value, '$.name') FROM json_each(e.validation, '$.checks') c WHERE json_extract(c.value, '$.ok') = 0 AND coalesce(json_extract(c.value, '$.warning'), 0) = 0 LIMIT 1) AS failed_check
     FROM environments e WHERE e.run_id = ? AND e.source IN ('designer', 'repair', 'fixed') ORDER BY e.id DESC LIMIT ?`,
  ).all(runId, limit) as { valid: number; validation_error: string | null; failed_check: string | null }[];
  return rows.map((row) => ({ valid: row.valid === 1, error: row.validation_error, failedCheck: row.failed_check }));
}

/** The warnings of an environment's stored validation (failed extra checks that did not invalidate it), as "check: detail". */
export function listValidationWarnings(db: ReadonlyDb, environmentId: number): string[] {
  return statement(
    db,
    `SELECT json_extract(c.value, '$.name') || ': ' || json_extract(c.value, '$.detail')
     FROM environments e, json_each(e.validation, '$.checks') c
     WHERE e.id = ? AND json_extract(c.value, '$.ok') = 0 AND coalesce(json_extract(c.value, '$.warning'), 0) = 1`,
  ).pluck().all(environmentId) as string[];
}

/** An attempt's raw designer reply, without loading its prompt (for `spade report`'s text output). */
export function getRawReply(db: ReadonlyDb, environmentId: number): string | null {
  return (statement(db, `SELECT raw_reply FROM environments WHERE id = ?`).pluck().get(environmentId) as string | null | undefined) ?? null;
}

/** Points a set member at the stored environment that holds its code (one created for an imported member). */
export function linkEnvSetMember(db: WritableDb, setName: string, codeSha256: string, environmentId: number): void {
  statement(db, `UPDATE env_set_members SET environment_id = ? WHERE set_name = ? AND code_sha256 = ?`).run(environmentId, setName, codeSha256);
}

/** A stored environment outside any run with this code (an earlier opened import), or null. */
export function findUnattachedEnvironment(db: ReadonlyDb, codeSha256: string): number | null {
  return (statement(db, `SELECT id FROM environments WHERE code_sha256 = ? AND run_id IS NULL AND source = 'import' ORDER BY id LIMIT 1`).pluck().get(codeSha256) as number | undefined) ?? null;
}
