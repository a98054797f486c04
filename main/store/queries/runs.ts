import type { ReadonlyDb, WritableDb } from "../DatabaseHandle.js";
import { fromJson, toJson } from "../json.js";
import { RecordNotFoundError } from "../RecordNotFoundError.js";
import { holderState, processStartTime, type HolderState } from "../processIdentity.js";
import { RunLockedError } from "../RunLockedError.js";
import { statement } from "../statement.js";
import { checkTextLength } from "../TextTooLongError.js";

export const runStatuses = ["running", "paused", "stopped", "failed", "completed"] as const;
export type RunStatus = (typeof runStatuses)[number];

export interface Run {
  id: number;
  name: string;
  /** The run's configuration as stored (parsed JSON). */
  config: unknown;
  seed: number;
  status: RunStatus;
  error: string | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  iterationsCompleted: number;
  ownerPid: number | null;
  ownerHeartbeat: number | null;
}

export interface NewRun {
  /** Defaults to "". */
  name?: string;
  /** Stored as JSON. Defaults to {}. */
  config?: unknown;
  /** Defaults to 0. */
  seed?: number;
  /** Defaults to "running". */
  status?: RunStatus;
}

interface RunRow {
  id: number;
  name: string;
  config: string;
  seed: number;
  status: RunStatus;
  error: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  iterations_completed: number;
  owner_pid: number | null;
  owner_heartbeat: number | null;
  owner_started: string | null;
}

function toRun(row: RunRow): Run {
  return {
    id: row.id,
    name: row.name,
    config: fromJson(row.config, "runs.config"),
    seed: row.seed,
    status: row.status,
    error: row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
    iterationsCompleted: row.iterations_completed,
    ownerPid: row.owner_pid,
    ownerHeartbeat: row.owner_heartbeat,
  };
}

const terminal = (status: RunStatus) => status === "stopped" || status === "failed" || status === "completed";

export function createRun(db: WritableDb, run: NewRun = {}): Run {
  checkTextLength("run name", run.name ?? "");
  const now = Date.now();
  const row = statement(
    db,
    `INSERT INTO runs (name, config, seed, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *`,
  ).get(run.name ?? "", toJson(run.config ?? {}), run.seed ?? 0, run.status ?? "running", now, now) as RunRow;
  return toRun(row);
}

export function getRun(db: ReadonlyDb, runId: number): Run | null {
  const row = statement(db, `SELECT * FROM runs WHERE id = ?`).get(runId) as RunRow | undefined;
  return row ? toRun(row) : null;
}

/** All runs, newest first. */
export function listRuns(db: ReadonlyDb): Run[] {
  return (statement(db, `SELECT * FROM runs ORDER BY id DESC`).all() as RunRow[]).map(toRun);
}

/**
 * Sets the status (and the error, for "failed"; cleared otherwise). A terminal status (stopped,
 * failed, completed) records `finishedAt`; going back to running or paused clears it.
 */
export function updateRunStatus(db: WritableDb, runId: number, status: RunStatus, error: string | null = null): void {
  const now = Date.now();
  statement(db, `UPDATE runs SET status = ?, error = ?, updated_at = ?, finished_at = ? WHERE id = ?`).run(
    status,
    error,
    now,
    terminal(status) ? now : null,
    runId,
  );
}

/** Replaces the run's stored config (a run resumed with another LoRA adapter plays on with it). */
export function updateRunConfig(db: WritableDb, runId: number, config: unknown): void {
  statement(db, `UPDATE runs SET config = ?, updated_at = ? WHERE id = ?`).run(toJson(config), Date.now(), runId);
}

export function setIterationsCompleted(db: WritableDb, runId: number, iterationsCompleted: number): void {
  statement(db, `UPDATE runs SET iterations_completed = ?, updated_at = ? WHERE id = ?`).run(iterationsCompleted, Date.now(), runId);
}

/** Deletes a run and everything recorded under it (iterations, environments, episodes, memory, metrics). */
export function deleteRun(db: WritableDb, runId: number): void {
  statement(db, `DELETE FROM runs WHERE id = ?`).run(runId);
}

export interface RunLockOptions {
  /** A holder whose heartbeat is older than this is considered gone, even if its pid is alive. Defaults to 60000 ms. */
  staleAfterMs?: number;
  /** The current time in ms. Defaults to Date.now(). */
  now?: number;
  /**
   * Whether the holder (a pid and the start time it recorded) is still that process. Defaults to
   * `holderState`: a zombie, an exiting process and a reused pid count as gone.
   */
  holderState?: (pid: number, startTime: string | null) => HolderState;
}

/**
 * Makes `pid` the run's only writer. Refused with `RunLockedError` while another process that is
 * still alive holds the run with a heartbeat fresher than `staleAfterMs`; a dead, dying or silent
 * holder (e.g. killed with kill -9, even before its parent reaped it) is taken over. The check and
 * the claim are one IMMEDIATE transaction.
 */
export function acquireRunLock(db: WritableDb, runId: number, pid: number, options: RunLockOptions = {}): void {
  const now = options.now ?? Date.now();
  const staleAfterMs = options.staleAfterMs ?? 60_000;
  const stateOf = options.holderState ?? holderState;
  db.transaction(() => {
    const row = statement(db, `SELECT owner_pid, owner_heartbeat, owner_started FROM runs WHERE id = ?`).get(runId) as
      | Pick<RunRow, "owner_pid" | "owner_heartbeat" | "owner_started">
      | undefined;
    if (!row) throw new RecordNotFoundError("run", runId);
    const { owner_pid: owner, owner_heartbeat: heartbeat, owner_started: started } = row;
    if (owner !== null && owner !== pid && heartbeat !== null) {
      const age = now - heartbeat;
      if (age < staleAfterMs && stateOf(owner, started) === "alive") throw new RunLockedError(runId, owner, age);
    }
    statement(db, `UPDATE runs SET owner_pid = ?, owner_heartbeat = ?, owner_started = ? WHERE id = ?`).run(pid, now, processStartTime(pid), runId);
  }).immediate();
}

export interface RunLockWaitOptions extends Omit<RunLockOptions, "now"> {
  /** How long to wait for a live holder to go away (a killed process being torn down) before refusing. Defaults to 3000 ms. */
  waitMs?: number;
  /** Defaults to 100 ms. */
  pollMs?: number;
}

/** `acquireRunLock`, but a holder that is still alive gets `waitMs` to finish dying before the run is refused. */
export async function acquireRunLockPatiently(db: WritableDb, runId: number, pid: number, options: RunLockWaitOptions = {}): Promise<void> {
  const deadline = Date.now() + (options.waitMs ?? 3000);
  for (;;) {
    try {
      acquireRunLock(db, runId, pid, options);
      return;
    } catch (error) {
      if (!(error instanceof RunLockedError) || Date.now() >= deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 100));
  }
}

/** Refreshes the lock's heartbeat. Returns false when `pid` no longer holds the run (it was taken over). */
export function heartbeatRunLock(db: WritableDb, runId: number, pid: number, now: number = Date.now()): boolean {
  return statement(db, `UPDATE runs SET owner_heartbeat = ? WHERE id = ? AND owner_pid = ?`).run(now, runId, pid).changes === 1;
}

/** Gives the run up (only if `pid` holds it). */
export function releaseRunLock(db: WritableDb, runId: number, pid: number): void {
  statement(db, `UPDATE runs SET owner_pid = NULL, owner_heartbeat = NULL, owner_started = NULL WHERE id = ? AND owner_pid = ?`).run(runId, pid);
}
