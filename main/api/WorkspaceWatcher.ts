import type { WorkbenchEvent } from "../../shared/api/events.js";
import type { RunProgressSnapshot } from "../../shared/api/runTypes.js";
import type { WritableDb } from "../store/DatabaseHandle.js";
import { listRuns, type RunState } from "../store/queries/runs.js";
import { statement } from "../store/statement.js";

export interface WorkspaceWatcherOptions {
  /** How often `PRAGMA data_version` is read. Defaults to 250 ms. */
  pollMs?: number;
  /** How often the runs are read even when nothing was written (an owner that died writes nothing). Defaults to 2000 ms. */
  livenessMs?: number;
}

interface RunSeen {
  status: RunState;
  iterationsCompleted: number;
  progress: string | null;
}

/**
 * Makes the workspace one live workspace: what other processes write to it (a `spade run` in a
 * terminal, a second window) reaches this process's event stream within a second. SQLite's
 * `PRAGMA data_version` changes when another connection commits, so a cheap poll of it is the
 * signal; the runs and environments written since are then read and sent as the usual events.
 * Writes of this process's own connection do not change it, and already have their events.
 */
export class WorkspaceWatcher {
  readonly #db: WritableDb;
  readonly #emit: (event: WorkbenchEvent) => void;
  readonly #timer: NodeJS.Timeout;
  readonly #livenessMs: number;
  #dataVersion: number;
  #lastRead = 0;
  #runs = new Map<number, RunSeen>();
  #lastEnvironment: number;

  constructor(db: WritableDb, emit: (event: WorkbenchEvent) => void, options: WorkspaceWatcherOptions = {}) {
    this.#db = db;
    this.#emit = emit;
    this.#livenessMs = options.livenessMs ?? 2000;
    this.#dataVersion = this.#readDataVersion();
    this.#lastEnvironment = this.#maxEnvironmentId();
    this.#runs = this.#readRuns();
    this.#lastRead = Date.now();
    this.#timer = setInterval(() => this.check(), options.pollMs ?? 250);
    this.#timer.unref();
  }

  /** Looks once for changes made by other processes and sends their events. */
  check(): void {
    try {
      const version = this.#readDataVersion();
      const changed = version !== this.#dataVersion;
      if (!changed && Date.now() - this.#lastRead < this.#livenessMs) return;
      this.#dataVersion = version;
      this.#lastRead = Date.now();
      this.#diffRuns(this.#readRuns());
      if (changed) this.#newEnvironments();
    } catch {
      // A closed or busy database: the next tick tries again.
    }
  }

  close(): void {
    clearInterval(this.#timer);
  }

  #readDataVersion(): number {
    return Number(this.#db.pragma("data_version", { simple: true }));
  }

  #maxEnvironmentId(): number {
    return (statement(this.#db, `SELECT coalesce(max(id), 0) AS id FROM environments`).get() as { id: number }).id;
  }

  #readRuns(): Map<number, RunSeen> {
    const runs = new Map<number, RunSeen>();
    for (const run of listRuns(this.#db)) runs.set(run.id, { status: run.status, iterationsCompleted: run.iterationsCompleted, progress: run.progress === null ? null : JSON.stringify(run.progress) });
    return runs;
  }

  #diffRuns(now: Map<number, RunSeen>): void {
    for (const [runId, run] of now) {
      const before = this.#runs.get(runId);
      if (!before || before.status !== run.status) this.#emit({ type: "runStatus", runId, status: run.status, error: null });
      for (let iteration = before?.iterationsCompleted ?? 0; iteration < run.iterationsCompleted; iteration++) this.#emit({ type: "iterationCompleted", runId, iteration });
      if (run.progress !== null && run.progress !== (before?.progress ?? null)) {
        const progress = JSON.parse(run.progress) as RunProgressSnapshot;
        const played = progress.units.find((unit) => unit.name === "played");
        this.#emit({ type: "runProgress", runId, iteration: progress.iteration, done: played?.done ?? 0, total: played?.total ?? 0, phase: progress.phase, progress });
      }
    }
    this.#runs = now;
  }

  #newEnvironments(): void {
    const rows = statement(this.#db, `SELECT id, run_id, iteration, valid FROM environments WHERE id > ? ORDER BY id LIMIT 200`).all(this.#lastEnvironment) as { id: number; run_id: number | null; iteration: number | null; valid: number }[];
    for (const row of rows) {
      this.#lastEnvironment = row.id;
      this.#emit({ type: "environmentAdded", runId: row.run_id, environmentId: row.id, iteration: row.iteration, valid: row.valid === 1 });
    }
  }
}
