import type { ReadonlyDb, WritableDb } from "../DatabaseHandle.js";
import { fromJson, toJson } from "../json.js";
import { statement } from "../statement.js";

/** A LoRA adapter produced by a trainer (or registered by hand), with its lineage. */
export interface Adapter {
  id: number;
  runId: number | null;
  /** The adapter it was trained from; null for one trained on the base model. */
  parentId: number | null;
  /** Unique; adapter files are immutable and versioned by name. */
  name: string;
  path: string;
  baseModelSha256: string | null;
  /** The training data manifest (parsed JSON). */
  manifest: unknown;
  trainerCommand: string | null;
  log: string | null;
  metrics: unknown;
  /** Free-form lifecycle state, e.g. "training", "ready", "failed", "promoted", "rejected". */
  status: string;
  createdAt: number;
}

export type NewAdapter = Pick<Adapter, "name" | "path"> & Partial<Omit<Adapter, "id" | "name" | "path" | "createdAt">>;

/** Fields `updateAdapter` can change; unset ones stay. */
export type AdapterPatch = Partial<Pick<Adapter, "path" | "manifest" | "log" | "metrics" | "status" | "baseModelSha256">>;

interface AdapterRow {
  id: number;
  run_id: number | null;
  parent_id: number | null;
  name: string;
  path: string;
  base_model_sha256: string | null;
  manifest: string | null;
  trainer_command: string | null;
  log: string | null;
  metrics: string | null;
  status: string;
  created_at: number;
}

function toAdapter(row: AdapterRow): Adapter {
  return {
    id: row.id,
    runId: row.run_id,
    parentId: row.parent_id,
    name: row.name,
    path: row.path,
    baseModelSha256: row.base_model_sha256,
    manifest: fromJson(row.manifest, "adapters.manifest"),
    trainerCommand: row.trainer_command,
    log: row.log,
    metrics: fromJson(row.metrics, "adapters.metrics"),
    status: row.status,
    createdAt: row.created_at,
  };
}

/** Registers an adapter and returns its id; the name must be new (UNIQUE). Status defaults to "ready". */
export function insertAdapter(db: WritableDb, adapter: NewAdapter): number {
  const row = statement(
    db,
    `INSERT INTO adapters (run_id, parent_id, name, path, base_model_sha256, manifest, trainer_command, log, metrics, status, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  ).get(
    adapter.runId ?? null,
    adapter.parentId ?? null,
    adapter.name,
    adapter.path,
    adapter.baseModelSha256 ?? null,
    toJson(adapter.manifest),
    adapter.trainerCommand ?? null,
    adapter.log ?? null,
    toJson(adapter.metrics),
    adapter.status ?? "ready",
    Date.now(),
  ) as { id: number };
  return row.id;
}

/** Changes the fields set in `patch` (e.g. the trainer's log as it streams, then the status). */
export function updateAdapter(db: WritableDb, id: number, patch: AdapterPatch): void {
  const columns: [string, unknown][] = [];
  if (patch.path !== undefined) columns.push(["path", patch.path]);
  if (patch.manifest !== undefined) columns.push(["manifest", toJson(patch.manifest)]);
  if (patch.log !== undefined) columns.push(["log", patch.log]);
  if (patch.metrics !== undefined) columns.push(["metrics", toJson(patch.metrics)]);
  if (patch.status !== undefined) columns.push(["status", patch.status]);
  if (patch.baseModelSha256 !== undefined) columns.push(["base_model_sha256", patch.baseModelSha256]);
  if (columns.length === 0) return;
  const sql = `UPDATE adapters SET ${columns.map(([column]) => `${column} = ?`).join(", ")} WHERE id = ?`;
  statement(db, sql).run(...columns.map(([, value]) => value), id);
}

export function getAdapter(db: ReadonlyDb, id: number): Adapter | null {
  const row = statement(db, `SELECT * FROM adapters WHERE id = ?`).get(id) as AdapterRow | undefined;
  return row ? toAdapter(row) : null;
}

export function getAdapterByName(db: ReadonlyDb, name: string): Adapter | null {
  const row = statement(db, `SELECT * FROM adapters WHERE name = ?`).get(name) as AdapterRow | undefined;
  return row ? toAdapter(row) : null;
}

/** Adapters oldest first, all of them or one run's. */
export function listAdapters(db: ReadonlyDb, runId?: number): Adapter[] {
  const rows =
    runId === undefined
      ? statement(db, `SELECT * FROM adapters ORDER BY id`).all()
      : statement(db, `SELECT * FROM adapters WHERE run_id = ? ORDER BY id`).all(runId);
  return (rows as AdapterRow[]).map(toAdapter);
}
