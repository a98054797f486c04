// A game whose hint prompt did not fit skips its hinted plays: the report and the environment page say why.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Workbench } from "../../main/api/Workbench.js";
import { buildRunReport } from "../../main/selfplay/buildRunReport.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { createRun } from "../../main/store/queries/runs.js";
import { putRunNote } from "../../main/store/queries/schedule.js";

describe("skipped hinted plays", () => {
  it("carry their reason into the report and the environment view", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "spade-hint-skip-")), "w.sqlite");
    const workbench = Workbench.open({ dbPath: path, runtime: null, runControl: null, watchMs: null });
    try {
      const { db } = workbench;
      const run = createRun(db, { status: "completed" });
      const skipped = insertEnvironment(db, { runId: run.id, iteration: 0, slot: 0, attempt: 0, source: "designer", code: "class A: pass", valid: true, className: "A" });
      const hinted = insertEnvironment(db, { runId: run.id, iteration: 0, slot: 1, attempt: 0, source: "designer", code: "class B: pass", valid: true, className: "B" });
      const reason = `no hint for environment ${skipped}: prompt too long (2100 > 2048 tokens): raise backend.contextSize or shorten the prompt; its hinted plays are skipped`;
      putRunNote(db, run.id, 0, `hint skipped ${skipped}`, reason);
      const report = buildRunReport(db, run.id).runs[0]!;
      expect(report.environments.find((env) => env.id === skipped)!.hintSkipped).toBe(reason);
      expect(report.environments.find((env) => env.id === hinted)!.hintSkipped).toBeNull();
      expect((await workbench.api.getEnvironment({ envId: skipped })).hintSkipped).toBe(reason);
      expect((await workbench.api.getEnvironment({ envId: hinted })).hintSkipped).toBeNull();
    } finally {
      await workbench.close();
    }
  });
});
