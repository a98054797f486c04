import type { EnvStatistics } from "../../../shared/envStatistics.js";
import type { ReadonlyDb, WritableDb } from "../DatabaseHandle.js";
import { statement } from "../statement.js";
import { codeSha256 } from "./environments.js";
import { checkTextLength } from "../TextTooLongError.js";

/** A named, shareable set of environments (fixed-pool baselines, curated exports). */
export interface EnvSet {
  name: string;
  createdAt: number;
  members: number;
}

/** One environment of a set; identified within the set by the SHA-256 of its code. */
export interface EnvSetMember {
  setName: string;
  codeSha256: string;
  /** The stored environment it came from, when known. */
  environmentId: number | null;
  className: string | null;
  code: string;
  hint: string | null;
  skill: string | null;
  winRate: number | null;
  hintWinRate: number | null;
  regret: number | null;
  /** Where it came from, e.g. "run:3", "import", a file name. */
  source: string;
}

export type NewEnvSetMember = Pick<EnvSetMember, "code" | "source"> &
  Partial<Omit<EnvSetMember, "setName" | "codeSha256" | "code" | "source">>;

interface MemberRow {
  set_name: string;
  code_sha256: string;
  environment_id: number | null;
  class_name: string | null;
  code: string;
  hint: string | null;
  skill: string | null;
  win_rate: number | null;
  hint_win_rate: number | null;
  regret: number | null;
  source: string;
}

/** Creates the set if it does not exist yet. */
export function createEnvSet(db: WritableDb, name: string): void {
  checkTextLength("environment set name", name);
  statement(db, `INSERT OR IGNORE INTO env_sets (name, created_at) VALUES (?, ?)`).run(name, Date.now());
}

/**
 * Adds environments to a set (created when missing) in one transaction. Code already in the set
 * is not added again. Returns how many were new.
 */
export function addEnvSetMembers(db: WritableDb, setName: string, members: readonly NewEnvSetMember[]): number {
  checkTextLength("environment set name", setName);
  const insert = statement(
    db,
    `INSERT OR IGNORE INTO env_set_members (set_name, code_sha256, environment_id, class_name, code, hint, skill, win_rate,
       hint_win_rate, regret, source)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  return db.transaction(() => {
    createEnvSet(db, setName);
    let added = 0;
    for (const member of members) {
      added += insert.run(
        setName,
        codeSha256(member.code),
        member.environmentId ?? null,
        member.className ?? null,
        member.code,
        member.hint ?? null,
        member.skill ?? null,
        member.winRate ?? null,
        member.hintWinRate ?? null,
        member.regret ?? null,
        member.source,
      ).changes;
    }
    return added;
  }).immediate();
}

export function getEnvSet(db: ReadonlyDb, name: string): EnvSet | null {
  const row = statement(
    db,
    `SELECT s.name, s.created_at, (SELECT count(*) FROM env_set_members m WHERE m.set_name = s.name) AS members
     FROM env_sets s WHERE s.name = ?`,
  ).get(name) as { name: string; created_at: number; members: number } | undefined;
  return row ? { name: row.name, createdAt: row.created_at, members: row.members } : null;
}

/** All sets by name, with their sizes. */
export function listEnvSets(db: ReadonlyDb): EnvSet[] {
  const rows = statement(
    db,
    `SELECT s.name, s.created_at, (SELECT count(*) FROM env_set_members m WHERE m.set_name = s.name) AS members
     FROM env_sets s ORDER BY s.name`,
  ).all() as { name: string; created_at: number; members: number }[];
  return rows.map((row) => ({ name: row.name, createdAt: row.created_at, members: row.members }));
}

/** A set's environments in a stable order (by class name, then code hash): fixed-pool draws index into it. */
export function listEnvSetMembers(db: ReadonlyDb, setName: string): EnvSetMember[] {
  const rows = statement(db, `SELECT * FROM env_set_members WHERE set_name = ? ORDER BY class_name, code_sha256`).all(setName) as MemberRow[];
  return rows.map((row) => ({
    setName: row.set_name,
    codeSha256: row.code_sha256,
    environmentId: row.environment_id,
    className: row.class_name,
    code: row.code,
    hint: row.hint,
    skill: row.skill,
    winRate: row.win_rate,
    hintWinRate: row.hint_win_rate,
    regret: row.regret,
    source: row.source,
  }));
}

/** Deletes a set and its members (the environments they came from stay). */
export function deleteEnvSet(db: WritableDb, name: string): void {
  statement(db, `DELETE FROM env_sets WHERE name = ?`).run(name);
}

/** What every play of one set member's code says, over all runs (the canary counted as play 0, as the environment's own statistics count it); the regret is the view's to derive. */
export interface EnvSetMemberPlays extends Omit<EnvStatistics, "regret"> {
  /** Runs that played it. */
  runs: number;
}

/**
 * The plays of a set's members across runs, by code hash: a member is played as a new stored
 * environment in each fixed-pool run, so its plays are those of every environment with its code.
 * Members never played are absent. A win is a return above 0 (as in the environment statistics).
 */
export function envSetMemberPlays(db: ReadonlyDb, setName: string): Map<string, EnvSetMemberPlays> {
  const rows = statement(
    db,
    `SELECT e.code_sha256 AS sha, count(DISTINCT ep.run_id) AS runs,
       sum(ep.hinted = 0) AS plays, sum(ep.hinted = 1) AS hint_plays,
       avg(CASE WHEN ep.hinted = 0 THEN ep."return" > 0 END) AS win_rate,
       avg(CASE WHEN ep.hinted = 1 THEN ep."return" > 0 END) AS hint_win_rate,
       avg(CASE WHEN ep.hinted = 0 THEN ep."return" END) AS mean_return,
       avg(CASE WHEN ep.hinted = 1 THEN ep."return" END) AS hint_mean_return
     FROM env_set_members m
     JOIN environments e ON e.code_sha256 = m.code_sha256
     JOIN episodes ep ON ep.environment_id = e.id
     WHERE m.set_name = ?
     GROUP BY e.code_sha256`,
  ).all(setName) as { sha: string; runs: number; plays: number; hint_plays: number; win_rate: number | null; hint_win_rate: number | null; mean_return: number | null; hint_mean_return: number | null }[];
  return new Map(
    rows.map((row) => [
      row.sha,
      { runs: row.runs, plays: row.plays, hintPlays: row.hint_plays, winRate: row.win_rate, hintWinRate: row.hint_win_rate, meanReturn: row.mean_return, hintMeanReturn: row.hint_mean_return },
    ]),
  );
}
