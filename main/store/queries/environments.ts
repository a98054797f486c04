import { createHash } from "node:crypto";
import type { ValidationReport } from "../../../shared/environment.js";
import type { ChatMessage } from "../../../shared/llm.js";
import type { ReadonlyDb, WritableDb } from "../DatabaseHandle.js";
import { fromJson, toFlag, toJson } from "../json.js";
import { likePattern } from "../likePattern.js";
import { statement } from "../statement.js";

/**
 * Where a stored environment version came from: a designer attempt, a repair of a failed attempt,
 * a user's edit, an import from a file, or a draw from a fixed environment set (ablation).
 */
export type EnvironmentSource = "designer" | "repair" | "edit" | "import" | "fixed";
export type Novelty = "novel" | "duplicate";

/** One designer attempt or one edited / imported version of an environment. */
export interface Environment {
  id: number;
  /** null for versions made outside a run (edits, imports). */
  runId: number | null;
  iteration: number | null;
  /** Index of the environment within its iteration. */
  slot: number | null;
  /** 0, 1, 2, ... within the slot's repair chain. */
  attempt: number | null;
  /** The previous attempt of the repair chain, or the version an edit came from. */
  parentId: number | null;
  source: EnvironmentSource;
  documentId: string | null;
  skill: string | null;
  difficulty: string | null;
  /** The designer prompt messages. */
  prompt: ChatMessage[] | null;
  rawReply: string | null;
  /** The extracted code; null when the reply had no code block. */
  code: string | null;
  codeSha256: string | null;
  className: string | null;
  valid: boolean;
  validation: ValidationReport | null;
  validationError: string | null;
  novelty: Novelty | null;
  duplicateOf: number | null;
  tokens: number | null;
  /** The adapter the designer was sampled with (null: the base model or not sampled). */
  adapter: string | null;
  createdAt: number;
}

/** What `insertEnvironment` takes: the generated fields are left out, unknown ones may be omitted. */
export type NewEnvironment = Pick<Environment, "source" | "code" | "valid"> &
  Partial<Omit<Environment, "id" | "codeSha256" | "createdAt" | "source" | "code" | "valid">>;

/** A row of the environment list: no prompt, reply, code or report, plus statistics and memory flags. */
export interface EnvironmentSummary extends Omit<Environment, "prompt" | "rawReply" | "code" | "validation"> {
  plays: number | null;
  hintPlays: number | null;
  winRate: number | null;
  hintWinRate: number | null;
  meanReturn: number | null;
  hintMeanReturn: number | null;
  regret: number | null;
  designerReward: number | null;
  inMemory: boolean;
  pinned: boolean;
  banned: boolean;
}

/** "slot": by iteration, slot and attempt (a slot's repairs right after its first attempt). */
/** "memory": pinned first, then in memory, then banned, then the rest (descending). */
export type EnvironmentOrder = "id" | "iteration" | "slot" | "regret" | "winRate" | "designerReward" | "createdAt" | "run" | "skill" | "memory";

/** Filters for `listEnvironments` / `countEnvironments`. Unset fields do not filter. */
export interface EnvironmentFilter {
  /** A run's environments; null: those outside any run (edits, imports). */
  runId?: number | null;
  iteration?: number;
  valid?: boolean;
  source?: EnvironmentSource | EnvironmentSource[];
  documentId?: string;
  /** Exact skill name. */
  skill?: string;
  novelty?: Novelty;
  /** Inclusive bounds on the regret (environments without statistics are left out when set). */
  regretMin?: number;
  regretMax?: number;
  /** Inclusive bounds on the unhinted win rate. */
  winRateMin?: number;
  winRateMax?: number;
  /** Currently in the environment memory (true) or not (false). */
  inMemory?: boolean;
  pinned?: boolean;
  banned?: boolean;
  /** Case-insensitive substring of the class name or the code. */
  search?: string;
  /** Defaults to "id". Missing values sort last. */
  orderBy?: EnvironmentOrder;
  /** Defaults to false (ascending). */
  descending?: boolean;
  /** Defaults to 100. */
  limit?: number;
  /** Defaults to 0. */
  offset?: number;
}

interface EnvironmentRow {
  id: number;
  run_id: number | null;
  iteration: number | null;
  slot: number | null;
  attempt: number | null;
  parent_id: number | null;
  source: EnvironmentSource;
  document_id: string | null;
  skill: string | null;
  difficulty: string | null;
  prompt?: string | null;
  raw_reply?: string | null;
  code?: string | null;
  code_sha256: string | null;
  class_name: string | null;
  valid: number;
  validation?: string | null;
  validation_error: string | null;
  novelty: Novelty | null;
  duplicate_of: number | null;
  tokens: number | null;
  adapter: string | null;
  created_at: number;
}

interface SummaryRow extends EnvironmentRow {
  plays: number | null;
  hint_plays: number | null;
  win_rate: number | null;
  hint_win_rate: number | null;
  mean_return: number | null;
  hint_mean_return: number | null;
  regret: number | null;
  designer_reward: number | null;
  in_memory: number | null;
  pinned: number | null;
  banned: number | null;
}

function toSummaryBase(row: EnvironmentRow): Omit<Environment, "prompt" | "rawReply" | "code" | "validation"> {
  return {
    id: row.id,
    runId: row.run_id,
    iteration: row.iteration,
    slot: row.slot,
    attempt: row.attempt,
    parentId: row.parent_id,
    source: row.source,
    documentId: row.document_id,
    skill: row.skill,
    difficulty: row.difficulty,
    codeSha256: row.code_sha256,
    className: row.class_name,
    valid: row.valid === 1,
    validationError: row.validation_error,
    novelty: row.novelty,
    duplicateOf: row.duplicate_of,
    tokens: row.tokens,
    adapter: row.adapter ?? null,
    createdAt: row.created_at,
  };
}

function toEnvironment(row: EnvironmentRow): Environment {
  return {
    ...toSummaryBase(row),
    prompt: fromJson<ChatMessage[]>(row.prompt, "environments.prompt"),
    rawReply: row.raw_reply ?? null,
    code: row.code ?? null,
    validation: fromJson<ValidationReport>(row.validation, "environments.validation"),
  };
}

/** The hex SHA-256 of an environment's code: how identical code is recognised across runs and sets. */
export function codeSha256(code: string): string {
  return createHash("sha256").update(code, "utf8").digest("hex");
}

/**
 * Stores one attempt or version and returns its id. A second row for the same run, iteration,
 * slot and attempt (designer, repair and fixed rows) fails with a UNIQUE constraint error: on
 * resume, look it up with `findAttempt` first.
 */
export function insertEnvironment(db: WritableDb, env: NewEnvironment): number {
  const row = statement(
    db,
    `INSERT INTO environments (run_id, iteration, slot, attempt, parent_id, source, document_id, skill, difficulty, prompt,
       raw_reply, code, code_sha256, class_name, valid, validation, validation_error, novelty, duplicate_of, tokens, adapter, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  ).get(
    env.runId ?? null,
    env.iteration ?? null,
    env.slot ?? null,
    env.attempt ?? null,
    env.parentId ?? null,
    env.source,
    env.documentId ?? null,
    env.skill ?? null,
    env.difficulty ?? null,
    toJson(env.prompt),
    env.rawReply ?? null,
    env.code,
    env.code === null ? null : codeSha256(env.code),
    env.className ?? null,
    toFlag(env.valid),
    toJson(env.validation),
    env.validationError ?? null,
    env.novelty ?? null,
    env.duplicateOf ?? null,
    env.tokens ?? null,
    env.adapter ?? null,
    Date.now(),
  ) as { id: number };
  return row.id;
}

export function getEnvironment(db: ReadonlyDb, id: number): Environment | null {
  const row = statement(db, `SELECT * FROM environments WHERE id = ?`).get(id) as EnvironmentRow | undefined;
  return row ? toEnvironment(row) : null;
}

/** The stored designer / repair / fixed attempt of a run's slot, if it was stored (resume). */
export function findAttempt(db: ReadonlyDb, runId: number, iteration: number, slot: number, attempt: number): Environment | null {
  const row = statement(
    db,
    `SELECT * FROM environments WHERE run_id = ? AND iteration = ? AND slot = ? AND attempt = ? AND source IN ('designer', 'repair', 'fixed')`,
  ).get(runId, iteration, slot, attempt) as EnvironmentRow | undefined;
  return row ? toEnvironment(row) : null;
}

/** Records the novelty verdict of a valid environment. */
export function setEnvironmentNovelty(db: WritableDb, id: number, novelty: Novelty, duplicateOf: number | null = null): void {
  statement(db, `UPDATE environments SET novelty = ?, duplicate_of = ? WHERE id = ?`).run(novelty, duplicateOf, id);
}

/** The versions derived from an environment: its repairs and edits. */
export function listChildEnvironments(db: ReadonlyDb, parentId: number): EnvironmentSummary[] {
  return listEnvironmentsWhere(db, ["e.parent_id = ?"], [parentId], "e.id", 1000, 0);
}

const orderColumns: Record<EnvironmentOrder, string> = {
  id: "e.id",
  iteration: "e.iteration",
  slot: "e.iteration",
  regret: "s.regret",
  winRate: "s.win_rate",
  designerReward: "s.designer_reward",
  createdAt: "e.created_at",
  run: "e.run_id",
  skill: "e.skill",
  memory: "(coalesce(m.pinned, 0) * 4 + coalesce(m.in_memory, 0) * 2 + coalesce(m.banned, 0))",
};

/** A page of environments matching the filter, with their statistics (the UI's list). */
export function listEnvironments(db: ReadonlyDb, filter: EnvironmentFilter = {}): EnvironmentSummary[] {
  const { where, params } = filterClauses(filter);
  const column = orderColumns[filter.orderBy ?? "id"];
  if (!column) throw new TypeError(`listEnvironments: unknown orderBy "${filter.orderBy}"; expected ${Object.keys(orderColumns).join(", ")}`);
  const direction = filter.descending ? "DESC" : "ASC";
  const within = filter.orderBy === "slot" ? `e.slot ${direction}, e.attempt ${direction}, ` : "";
  const order = `${column} IS NULL, ${column} ${direction}, ${within}e.id ${direction}`;
  return listEnvironmentsWhere(db, where, params, order, filter.limit ?? 100, filter.offset ?? 0);
}

/** How many environments match the filter (paging ignores limit and offset). */
export function countEnvironments(db: ReadonlyDb, filter: EnvironmentFilter = {}): number {
  const { where, params } = filterClauses(filter);
  const sql = `SELECT count(*) FROM environments e ${joins} ${where.length ? `WHERE ${where.join(" AND ")}` : ""}`;
  return statement(db, sql).pluck().get(...params) as number;
}

const joins = `LEFT JOIN env_stats s ON s.environment_id = e.id LEFT JOIN memory m ON m.environment_id = e.id`;

function listEnvironmentsWhere(db: ReadonlyDb, where: string[], params: unknown[], order: string, limit: number, offset: number) {
  const sql =
    `SELECT e.id, e.run_id, e.iteration, e.slot, e.attempt, e.parent_id, e.source, e.document_id, e.skill, e.difficulty,
       e.code_sha256, e.class_name, e.valid, e.validation_error, e.novelty, e.duplicate_of, e.tokens, e.created_at,
       s.plays, s.hint_plays, s.win_rate, s.hint_win_rate, s.mean_return, s.hint_mean_return, s.regret, s.designer_reward,
       m.in_memory, m.pinned, m.banned
     FROM environments e ${joins} ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
     ORDER BY ${order} LIMIT ? OFFSET ?`;
  const rows = statement(db, sql).all(...params, limit, offset) as SummaryRow[];
  return rows.map(
    (row): EnvironmentSummary => ({
      ...toSummaryBase(row),
      plays: row.plays,
      hintPlays: row.hint_plays,
      winRate: row.win_rate,
      hintWinRate: row.hint_win_rate,
      meanReturn: row.mean_return,
      hintMeanReturn: row.hint_mean_return,
      regret: row.regret,
      designerReward: row.designer_reward,
      inMemory: row.in_memory === 1,
      pinned: row.pinned === 1,
      banned: row.banned === 1,
    }),
  );
}

function filterClauses(filter: EnvironmentFilter): { where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, ...values: unknown[]) => {
    where.push(clause);
    params.push(...values);
  };
  if (filter.runId === null) add("e.run_id IS NULL");
  else if (filter.runId !== undefined) add("e.run_id = ?", filter.runId);
  if (filter.iteration !== undefined) add("e.iteration = ?", filter.iteration);
  if (filter.valid !== undefined) add("e.valid = ?", toFlag(filter.valid));
  if (filter.source !== undefined) {
    const sources = Array.isArray(filter.source) ? filter.source : [filter.source];
    add(`e.source IN (${sources.map(() => "?").join(", ") || "NULL"})`, ...sources);
  }
  if (filter.documentId !== undefined) add("e.document_id = ?", filter.documentId);
  if (filter.skill !== undefined) add("e.skill = ?", filter.skill);
  if (filter.novelty !== undefined) add("e.novelty = ?", filter.novelty);
  if (filter.regretMin !== undefined) add("s.regret >= ?", filter.regretMin);
  if (filter.regretMax !== undefined) add("s.regret <= ?", filter.regretMax);
  if (filter.winRateMin !== undefined) add("s.win_rate >= ?", filter.winRateMin);
  if (filter.winRateMax !== undefined) add("s.win_rate <= ?", filter.winRateMax);
  if (filter.inMemory !== undefined) add(filter.inMemory ? "m.in_memory = 1" : "coalesce(m.in_memory, 0) = 0");
  if (filter.pinned !== undefined) add(filter.pinned ? "m.pinned = 1" : "coalesce(m.pinned, 0) = 0");
  if (filter.banned !== undefined) add(filter.banned ? "m.banned = 1" : "coalesce(m.banned, 0) = 0");
  if (filter.search) {
    const pattern = likePattern(filter.search);
    add(`(e.class_name LIKE ? ESCAPE '\\' OR e.code LIKE ? ESCAPE '\\')`, pattern, pattern);
  }
  return { where, params };
}
