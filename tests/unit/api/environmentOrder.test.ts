// The run page lists attempts by slot: with slots designed concurrently their ids interleave, yet
// each slot's repairs must follow its first attempt.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Workbench } from "../../../main/api/Workbench.js";
import { insertEnvironment } from "../../../main/store/queries/environments.js";
import { createRun } from "../../../main/store/queries/runs.js";
import { checkCall } from "../../../shared/api/methodTable.js";

describe("listEnvironments order \"slot\"", () => {
  it("groups interleaved attempts under their iteration and slot", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spade-order-"));
    const workbench = Workbench.open({ dbPath: join(dir, "w.sqlite"), runtime: null, runControl: null });
    try {
      const run = createRun(workbench.db, { config: {}, seed: 1 });
      // Stored in the order concurrent slots finish: 1.0, 0.0, 1.1, 0.1, then iteration 1.
      for (const [iteration, slot, attempt] of [[0, 1, 0], [0, 0, 0], [0, 1, 1], [0, 0, 1], [1, 0, 0]] as const) {
        insertEnvironment(workbench.db, { runId: run.id, iteration, slot, attempt, source: attempt === 0 ? "designer" : "repair", code: null, valid: false });
      }
      expect(checkCall("listEnvironments", { runId: run.id, order: "slot" }).input).toEqual({ runId: run.id, order: "slot" });
      const page = await workbench.api.listEnvironments({ runId: run.id, order: "slot" });
      expect(page.items.map((item) => `${item.iteration}.${item.slot}.${item.attempt}`)).toEqual(["0.0.0", "0.0.1", "0.1.0", "0.1.1", "1.0.0"]);
    } finally {
      await workbench.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
