// A run's state as read is true: a running run whose owner is gone reads as interrupted; another
// process asks the owner to pause or stop through the store; the owner's last word is one transaction.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { createRun, getRun, listRuns, readRunControlRequest, requestRunControl, setRunProgress, settleRun, staleHeartbeatMs } from "../../main/store/queries/runs.js";

let dir: string;
let db: WritableDb;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-run-control-"));
  db = openDatabase(join(dir, "ws.sqlite"));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The pid of a process that has exited (and been reaped). */
function deadPid(): number {
  const result = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(result.stdout);
}

describe("run state as read", () => {
  it("a running run owned by this live process is running; owned by a dead one, interrupted", () => {
    const mine = createRun(db, { ownerPid: process.pid });
    expect(mine).toMatchObject({ status: "running", ownerPid: process.pid, controlRequest: null, progress: null });
    const orphan = createRun(db, { ownerPid: deadPid() });
    expect(getRun(db, orphan.id)!.status).toBe("interrupted");
    expect(listRuns(db).find((run) => run.id === orphan.id)!.status).toBe("interrupted");
    // Only a running run can be interrupted: a paused one with a stale owner is paused.
    db.prepare("UPDATE runs SET status = 'paused' WHERE id = ?").run(orphan.id);
    expect(getRun(db, orphan.id)!.status).toBe("paused");
  });

  it("a live owner whose heartbeat is stale is interrupted too", () => {
    const run = createRun(db, { ownerPid: process.pid });
    db.prepare("UPDATE runs SET owner_heartbeat = ? WHERE id = ?").run(Date.now() - staleHeartbeatMs - 1, run.id);
    expect(getRun(db, run.id)!.status).toBe("interrupted");
  });

  it("settleRun writes the status and clears owner, request and progress together", () => {
    const run = createRun(db, { ownerPid: process.pid });
    setRunProgress(db, run.id, process.pid, { phase: "playing" });
    expect(getRun(db, run.id)!.progress).toEqual({ phase: "playing" });
    expect(requestRunControl(db, run.id, "pause")).toBe(true);
    settleRun(db, run.id, process.pid, "paused");
    expect(getRun(db, run.id)).toMatchObject({ status: "paused", ownerPid: null, ownerHeartbeat: null, controlRequest: null, progress: null });
  });
});

describe("control requests through the store", () => {
  it("the owner reads a pause asked by another connection; a stop is not weakened to a pause", () => {
    const run = createRun(db, { ownerPid: process.pid });
    const other = openDatabase(join(dir, "ws.sqlite"));
    try {
      expect(readRunControlRequest(db, run.id, process.pid)).toBeNull();
      expect(requestRunControl(other, run.id, "stop")).toBe(true);
      expect(requestRunControl(other, run.id, "pause")).toBe(true);
      expect(readRunControlRequest(db, run.id, process.pid)).toBe("stop");
      expect(readRunControlRequest(db, run.id, process.pid + 1)).toBeNull(); // only the owner is asked
    } finally {
      other.close();
    }
  });

  it("a run without an owner, or not running, cannot be asked", () => {
    const ownerless = createRun(db);
    expect(requestRunControl(db, ownerless.id, "pause")).toBe(false);
    const paused = createRun(db, { ownerPid: process.pid, status: "paused" });
    expect(requestRunControl(db, paused.id, "pause")).toBe(false);
  });
});

describe("RunController on runs this process does not own", () => {
  it("Pause on an interrupted run stores it paused, Stop stores it stopped, both without an owner", async () => {
    const { RunController } = await import("../../main/selfplay/RunController.js");
    const controller = new RunController({ db });
    const a = createRun(db, { ownerPid: deadPid() });
    const b = createRun(db, { ownerPid: deadPid() });
    await controller.pause(a.id);
    await controller.stop(b.id);
    expect(getRun(db, a.id)).toMatchObject({ status: "paused", ownerPid: null });
    expect(getRun(db, b.id)).toMatchObject({ status: "stopped", ownerPid: null });
    await expect(controller.pause(a.id)).rejects.toThrow(/run \d+ is not running \(it is paused\)/);
  });

  it("Pause on a run a live process owns waits in the store for that owner", async () => {
    const { RunController } = await import("../../main/selfplay/RunController.js");
    const controller = new RunController({ db, remoteWaitMs: 200 });
    const run = createRun(db, { ownerPid: process.ppid });
    await controller.pause(run.id);
    expect(getRun(db, run.id)).toMatchObject({ status: "running", controlRequest: "pause" });
  });
});
