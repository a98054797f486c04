// Ctrl-C twice as a run completes: a run stored completed stays completed and the process exits 0;
// a running one is stored paused (no owner) and exits 130.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { settleOnSecondSignal } from "../../main/cli/settleOnSecondSignal.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { createRun, getRun, settleRun } from "../../main/store/queries/runs.js";

describe("settleOnSecondSignal", () => {
  it("keeps a completed run completed (exit 0) and pauses a running one (exit 130)", () => {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), "spade-second-signal-")), "w.sqlite"));
    const done = createRun(db, { status: "running", ownerPid: process.pid });
    settleRun(db, done.id, process.pid, "completed");
    expect(settleOnSecondSignal(db, done.id, process.pid)).toEqual({ code: 0, message: `run ${done.id} completed` });
    expect(getRun(db, done.id)!.status).toBe("completed");

    const running = createRun(db, { status: "running", ownerPid: process.pid });
    expect(settleOnSecondSignal(db, running.id, process.pid)).toEqual({ code: 130, message: `run ${running.id} paused` });
    expect(getRun(db, running.id)).toMatchObject({ status: "paused", ownerPid: null });
    db.close();
  });
});
