import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { completeIteration, getIteration, listIterations, startIteration } from "../../main/store/queries/iterations.js";
import {
  acquireRunLock,
  acquireRunLockPatiently,
  createRun,
  deleteRun,
  getRun,
  heartbeatRunLock,
  listRuns,
  releaseRunLock,
  setIterationsCompleted,
  updateRunStatus,
} from "../../main/store/queries/runs.js";
import { RecordNotFoundError } from "../../main/store/RecordNotFoundError.js";
import { RunLockedError } from "../../main/store/RunLockedError.js";

let dir: string;
let db: WritableDb;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-store-runs-"));
  db = openDatabase(join(dir, "ws.sqlite"));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("runs", () => {
  it("creates runs with defaults and lists them newest first", () => {
    const a = createRun(db);
    const b = createRun(db, { name: "b", seed: 3, config: { plays: 8 }, status: "paused" });
    expect(a).toMatchObject({ name: "", seed: 0, config: {}, status: "running", error: null, finishedAt: null, iterationsCompleted: 0, ownerPid: null });
    expect(b).toMatchObject({ name: "b", seed: 3, config: { plays: 8 }, status: "paused" });
    expect(listRuns(db).map((run) => run.id)).toEqual([b.id, a.id]);
    expect(getRun(db, 999)).toBeNull();
  });

  it("records the finish time for terminal statuses and clears it on resume", () => {
    const run = createRun(db);
    updateRunStatus(db, run.id, "failed", "model crashed");
    const failed = getRun(db, run.id)!;
    expect(failed).toMatchObject({ status: "failed", error: "model crashed" });
    expect(failed.finishedAt).toBeGreaterThanOrEqual(run.createdAt);
    updateRunStatus(db, run.id, "running");
    expect(getRun(db, run.id)).toMatchObject({ status: "running", error: null, finishedAt: null });
    setIterationsCompleted(db, run.id, 4);
    expect(getRun(db, run.id)?.iterationsCompleted).toBe(4);
  });

  it("refuses an unknown status (CHECK constraint)", () => {
    const run = createRun(db);
    expect(() => updateRunStatus(db, run.id, "sleeping" as never)).toThrow(/CHECK constraint/);
  });

  it("deletes a run with its iterations", () => {
    const run = createRun(db);
    startIteration(db, run.id, 0);
    deleteRun(db, run.id);
    expect(getRun(db, run.id)).toBeNull();
    expect(listIterations(db, run.id)).toEqual([]);
  });
});

describe("run lock", () => {
  const otherLivePid = process.ppid;

  it("lets one process hold a run and refuses a second live writer with a fresh heartbeat", () => {
    const run = createRun(db);
    acquireRunLock(db, run.id, otherLivePid);
    expect(() => acquireRunLock(db, run.id, process.pid)).toThrow(RunLockedError);
    expect(() => acquireRunLock(db, run.id, process.pid)).toThrow(new RegExp(`run ${run.id} is being written by process ${otherLivePid}`));
    // The holder itself may re-acquire (a resumed loop in the same process).
    acquireRunLock(db, run.id, otherLivePid);
  });

  it("takes over from a dead process at once (kill -9, then --resume)", () => {
    const run = createRun(db);
    const deadPid = spawnSync(process.execPath, ["-e", ""]).pid!;
    acquireRunLock(db, run.id, deadPid);
    acquireRunLock(db, run.id, process.pid);
    expect(getRun(db, run.id)?.ownerPid).toBe(process.pid);
    expect(heartbeatRunLock(db, run.id, deadPid)).toBe(false);
  });

  it("takes over from a live process whose heartbeat is stale", () => {
    const run = createRun(db);
    const now = Date.now();
    acquireRunLock(db, run.id, otherLivePid, { now: now - 120_000 });
    expect(() => acquireRunLock(db, run.id, process.pid, { now, staleAfterMs: 200_000 })).toThrow(RunLockedError);
    acquireRunLock(db, run.id, process.pid, { now, staleAfterMs: 60_000 });
    expect(getRun(db, run.id)).toMatchObject({ ownerPid: process.pid, ownerHeartbeat: now });
  });

  it("keeps a lock fresh with heartbeats and frees it on release", () => {
    const run = createRun(db);
    const start = Date.now() - 120_000;
    acquireRunLock(db, run.id, otherLivePid, { now: start });
    expect(heartbeatRunLock(db, run.id, otherLivePid)).toBe(true);
    expect(() => acquireRunLock(db, run.id, process.pid)).toThrow(RunLockedError);
    releaseRunLock(db, run.id, process.pid); // not the holder: no effect
    expect(getRun(db, run.id)?.ownerPid).toBe(otherLivePid);
    releaseRunLock(db, run.id, otherLivePid);
    expect(getRun(db, run.id)).toMatchObject({ ownerPid: null, ownerHeartbeat: null });
    acquireRunLock(db, run.id, process.pid);
  });

  it("takes over from a killed holder that is still a zombie (not yet reaped by its parent)", () => {
    // A parent that forks a child which exits at once and then sleeps without reaping it: the child is a zombie.
    // It says the child's pid once /proc shows the child as a zombie ("Z"), and sleeps on.
    const script = [
      "import os, time",
      "pid = os.fork()",
      "if pid == 0: os._exit(0)",
      "while open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()[0] != 'Z': time.sleep(0.01)",
      "print(pid, flush=True)",
      "time.sleep(30)",
    ].join("\n");
    const zombie = spawn("python3", ["-c", script], { stdio: ["ignore", "pipe", "ignore"] });
    return new Promise<void>((resolve, reject) => {
      zombie.stdout!.once("data", (chunk: Buffer) => {
        try {
          const pid = Number(chunk.toString().trim());
          expect(() => process.kill(pid, 0)).not.toThrow(); // kill(0) still answers for a zombie
          const run = createRun(db);
          db.prepare("UPDATE runs SET owner_pid = ?, owner_heartbeat = ? WHERE id = ?").run(pid, Date.now(), run.id);
          acquireRunLock(db, run.id, process.pid);
          expect(getRun(db, run.id)?.ownerPid).toBe(process.pid);
          resolve();
        } catch (error) {
          reject(error);
        } finally {
          zombie.kill("SIGKILL");
        }
      });
    });
  });

  it("takes over from a live process that reused the holder's pid (another start time)", () => {
    const run = createRun(db);
    acquireRunLock(db, run.id, otherLivePid);
    expect(() => acquireRunLock(db, run.id, process.pid)).toThrow(RunLockedError);
    db.prepare("UPDATE runs SET owner_started = '1' WHERE id = ?").run(run.id);
    acquireRunLock(db, run.id, process.pid);
    expect(getRun(db, run.id)?.ownerPid).toBe(process.pid);
  });

  it("waits for a holder that is dying, and still refuses one that stays alive", async () => {
    const dying = spawn(process.execPath, ["-e", "setTimeout(() => {}, 400)"]);
    const run = createRun(db);
    acquireRunLock(db, run.id, dying.pid!);
    await acquireRunLockPatiently(db, run.id, process.pid, { waitMs: 10_000, pollMs: 20 });
    expect(getRun(db, run.id)?.ownerPid).toBe(process.pid);

    const other = createRun(db);
    acquireRunLock(db, other.id, otherLivePid);
    await expect(acquireRunLockPatiently(db, other.id, process.pid, { waitMs: 200, pollMs: 20 })).rejects.toThrow(RunLockedError);
  });

  it("names a missing run", () => {
    expect(() => acquireRunLock(db, 404, process.pid)).toThrow(RecordNotFoundError);
    expect(() => acquireRunLock(db, 404, process.pid)).toThrow("run 404 does not exist in this workspace");
  });
});

describe("iterations", () => {
  it("starts idempotently (resume keeps the first start) and completes", () => {
    const run = createRun(db);
    const first = startIteration(db, run.id, 0);
    expect(first).toMatchObject({ runId: run.id, iteration: 0, status: "running", finishedAt: null });
    db.prepare("UPDATE iterations SET started_at = 5 WHERE run_id = ?").run(run.id);
    expect(startIteration(db, run.id, 0).startedAt).toBe(5);
    completeIteration(db, run.id, 0);
    expect(getIteration(db, run.id, 0)).toMatchObject({ status: "completed" });
    expect(getIteration(db, run.id, 0)?.finishedAt).toBeGreaterThan(0);
    startIteration(db, run.id, 1);
    expect(listIterations(db, run.id).map((it) => [it.iteration, it.status])).toEqual([
      [0, "completed"],
      [1, "running"],
    ]);
    expect(getIteration(db, run.id, 7)).toBeNull();
  });
});
