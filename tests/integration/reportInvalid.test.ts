// `spade report` (text) on a run whose every attempt is invalid: the replies' first lines and the diagnosis.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunReport } from "../../shared/runReport.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { createRun, setIterationsCompleted, updateRunStatus } from "../../main/store/queries/runs.js";

const spade = resolve("out/engine/main/cli/spade.js");

function report(args: string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [spade, "report", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  let stdout = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  return new Promise((done) => child.on("close", (code) => done({ code, stdout })));
}

describe("spade report on a run with no valid attempt", () => {
  it("prints each invalid attempt's reply head and the run's diagnosis", async () => {
    const dbPath = join(mkdtempSync(join(tmpdir(), "spade-report-")), "w.sqlite");
    const db = openDatabase(dbPath);
    const run = createRun(db, { config: {}, seed: 1 });
    const detail = "the designer's reply has no ```python code block";
    for (let slot = 0; slot < 2; slot++) {
      insertEnvironment(db, {
        runId: run.id, iteration: 0, slot, attempt: 0, source: "designer", code: null, valid: false,
        rawReply: `Once upon a time, slot ${slot} had a little dog.\n\nThe dog was happy.\nHe ran.\nThe end.`,
        validation: { valid: false, className: null, checks: [{ name: "code_block", ok: false, detail }], error: detail, durationMs: 0 },
        validationError: detail,
      });
    }
    setIterationsCompleted(db, run.id, 1);
    updateRunStatus(db, run.id, "completed");
    db.close();

    const text = await report(["--db", dbPath]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("      reply| Once upon a time, slot 0 had a little dog.\n      reply| The dog was happy.\n      reply| He ran.\n      reply| …\n");
    expect(text.stdout).toContain("reply| Once upon a time, slot 1 had a little dog.");
    expect(text.stdout).toContain("  diagnosis: 2 of 2 replies contained no Python code: this model may not write code; see the replies\n");

    const json = JSON.parse((await report(["--db", dbPath, "--json"])).stdout) as RunReport;
    expect(json.runs[0]!.diagnosis?.kind).toBe("noCode");
    expect(json.runs[0]!.environments[0]!.replyHead).toBe("Once upon a time, slot 0 had a little dog.\nThe dog was happy.\nHe ran.\n…");
  }, 60_000);
});
