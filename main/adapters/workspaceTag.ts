import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { hostname } from "node:os";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { getRun } from "../store/queries/runs.js";

/**
 * Ten hex digits no other workspace produces for this run: a hash of the machine's name, the
 * database file's real path and the run's creation time. A server shared by several workspaces (or
 * machines) keeps adapters by name, so each run's adapter names carry it: two workspaces' `run-1`
 * never load, or sample from, each other's adapters. The same workspace and run give the same tag
 * on every start, so a resumed run finds what it loaded before.
 */
export function workspaceTag(db: ReadonlyDb, runId: number): string {
  let path = db.name;
  try {
    path = realpathSync(db.name);
  } catch {
    // an in-memory database: its name stands
  }
  return createHash("sha256").update(`${hostname()}\0${path}\0${runId}\0${getRun(db, runId)?.createdAt ?? 0}`).digest("hex").slice(0, 10);
}
