import type { ReadonlyDb, WritableDb } from "../DatabaseHandle.js";
import { fromJson, toJson } from "../json.js";
import { RecordNotFoundError } from "../RecordNotFoundError.js";
import { holderState, processStartTime, type HolderState } from "../processIdentity.js";
import { RunLockedError } from "../RunLockedError.js";
import { statement } from "../statement.js";
import { checkTextLength } from "../TextTooLongError.js";

export const runStatuses = ["running", "paused", "stopped", "failed", "completed"] as const;
export type RunStatus = (typeof runStatuses)[number];
/**
 * A run's state as read: its stored status, or "interrupted" for a run stored as running whose
 * owner is gone (killed, crashed, its heartbeat stale). Never written; resumable like a pause.
 */
export type RunState = RunStatus | "interrupted";
/** What another process may ask of a run's owner: picked up at the owner's next unit of work. */
export type RunControlRequest = "pause" | "stop";

export interface Run {
  id: number;
  name: string;
  /** The run's configuration as stored (parsed JSON). */
  config: unknown;
  seed: number;
  status: RunState;
  error: string | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  iterationsCompleted: number;
  ownerPid: number | null;
  ownerHeartbeat: number | null;
  /** A pause or stop another process asked for, not yet picked up by the owner. */
  controlRequest: RunControlRequest | null;
  /** The owner's live progress (parsed JSON), null when none was recorded. */
  progress: unknown;
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
  /** The process that owns the run from its creation (no moment without an owner). Defaults to none. */
  ownerPid?: number;
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
  control_request: RunControlRequest | null;
  progress: string | null;
}

/** A holder whose heartbeat is older than this is gone, even if its pid is alive (a frozen or foreign process). */
export const staleHeartbeatMs = 60_000;

/** Whether a run stored as running has lost its owner: no live holder with a fresh heartbeat. */
function ownerGone(row: Pick<RunRow, "owner_pid" | "owner_heartbeat" | "owner_started">, now: number): boolean {
  if (row.owner_pid === null) return false; // created without an owner (tests, benches): nothing to judge by
  if (row.owner_heartbeat !== null && now - row.owner_heartbeat >= staleHeartbeatMs) return true;
  return holderState(row.owner_pid, row.owner_started) === "gone";
}

function toRun(row: RunRow): Run {
  return {
    id: row.id,
    name: row.name,
    config: fromJson(row.config, "runs.config"),
    seed: row.seed,
    status: row.status === "running" && ownerGone(row, Date.now()) ? "interrupted" : row.status,
    error: row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
    iterationsCompleted: row.iterations_completed,
    ownerPid: row.owner_pid,
    ownerHeartbeat: row.owner_heartbeat,
    controlRequest: row.control_request ?? null,
    progress: row.progress === null || row.progress === undefined ? null : fromJson(row.progress, "runs.progress"),
  };
}

const terminal = (status: RunStatus) => status === "stopped" || status === "failed" || status === "completed";

export function createRun(db: WritableDb, run: NewRun = {}): Run {
  checkTextLength("run name", run.name ?? "");
  const now = Date.now();
  const owner = run.ownerPid ?? null;
  const row = statement(
    db,
    `INSERT INTO runs (name, config, seed, status, created_at, updated_at, owner_pid, owner_heartbeat, owner_started) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
  ).get(run.name ?? "", toJson(run.config ?? {}), run.seed ?? 0, run.status ?? "running", now, now, owner, owner === null ? null : now, owner === null ? null : processStartTime(owner)) as RunRow;
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
  const staleAfterMs = options.staleAfterMs ?? staleHeartbeatMs;
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

/** Gives the run up (only if `pid` holds it); a pending control request and the live progress go with it. */
export function releaseRunLock(db: WritableDb, runId: number, pid: number): void {
  statement(db, `UPDATE runs SET owner_pid = NULL, owner_heartbeat = NULL, owner_started = NULL, control_request = NULL, progress = NULL WHERE id = ? AND owner_pid = ?`).run(runId, pid);
}

/**
 * The owner's last word on a run: its status and the release of the lock in one transaction, so
 * no reader ever sees a paused run that still has an owner, or a running one without.
 */
export function settleRun(db: WritableDb, runId: number, pid: number, status: RunStatus, error: string | null = null): void {
  db.transaction(() => {
    updateRunStatus(db, runId, status, error);
    releaseRunLock(db, runId, pid);
  }).immediate();
}

/**
 * Asks the owner of a running run to pause or stop at its next unit of work (a stop is not
 * weakened to a pause). Returns false when the run has no owner to ask.
 */
export function requestRunControl(db: WritableDb, runId: number, request: RunControlRequest): boolean {
  return (
    statement(db, `UPDATE runs SET control_request = CASE WHEN control_request = 'stop' THEN 'stop' ELSE ? END WHERE id = ? AND status = 'running' AND owner_pid IS NOT NULL`).run(request, runId)
      .changes === 1
  );
}

/** The pending control request for the run `pid` owns, or null. */
export function readRunControlRequest(db: ReadonlyDb, runId: number, pid: number): RunControlRequest | null {
  const row = statement(db, `SELECT control_request FROM runs WHERE id = ? AND owner_pid = ?`).get(runId, pid) as { control_request: RunControlRequest | null } | undefined;
  return row?.control_request ?? null;
}

/** Records the owner's live progress (JSON) for windows in other processes. */
export function setRunProgress(db: WritableDb, runId: number, pid: number, progress: unknown): void {
  statement(db, `UPDATE runs SET progress = ? WHERE id = ? AND owner_pid = ?`).run(toJson(progress), runId, pid);
}
