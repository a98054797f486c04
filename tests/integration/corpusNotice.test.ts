import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { RunController, type RunControllerEvent } from "../../main/selfplay/RunController.js";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { buildRunReport } from "../../main/selfplay/buildRunReport.js";
import { Workbench } from "../../main/api/Workbench.js";
import { spadeCli } from "../support/startCli.js";

let dir: string;
let db: WritableDb;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-corpus-notice-"));
  db = openDatabase(join(dir, "ws.sqlite"));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

it("tells the researcher, when a run opens its corpus, which lines were left out, and keeps it with the run for the report and the Corpus page", async () => {
  const corpus = join(dir, "docs.jsonl");
  writeFileSync(corpus, [JSON.stringify({ text: "a document" }), "\u0000{broken", JSON.stringify({ title: "no text" })].join("\n"));
  const config = parseRunConfig(
    { db: join(dir, "ws.sqlite"), seed: 1, iterations: 1, envsPerIteration: 1, plays: 1, hintPlays: 0, maxTurns: 1, backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m" }, corpus: { path: corpus }, training: null },
    "run.json",
  );
  const controller = new RunController({
    db,
    createBackend: async () => {
      throw new Error("no model in this test");
    },
  });
  const events: RunControllerEvent[] = [];
  controller.on((event) => events.push(event));
  const { runId } = await controller.start(config);
  expect(await controller.wait(runId)).toBe("failed");
  const notice = events.find((event) => event.type === "notice");
  expect(notice).toMatchObject({ type: "notice", runId });
  const message = notice && "message" in notice ? notice.message : "";
  expect(message).toMatch(new RegExp(`corpus .*docs\\.jsonl: 2 lines are not a document and left out \\(.*docs\\.jsonl:2: invalid JSON .*; .*docs\\.jsonl:3: expected a string field "text" or "orig_doc"; found fields "title"\\)`));
  expect(message).toContain("\\x00");
  expect(message).not.toContain("\u0000");
  // Kept with the run: `spade report` and the Corpus page (the documents list) show it.
  expect(buildRunReport(db, runId).runs[0]!.corpusSkipped).toBe(message);
  const workbench = Workbench.open({ dbPath: join(dir, "ws.sqlite"), runtime: null, runControl: null });
  const page = await workbench.api.listDocuments({});
  await workbench.close();
  expect(page.problems).toEqual([{ runId, runName: "", message }]);
  const report = spawnSync(process.execPath, [spadeCli, "report", "--db", join(dir, "ws.sqlite")], { encoding: "utf8" });
  expect(report.stdout).toContain(`\n  ${message}\n`);
});

it("keeps the corpus's index in the workspace's cache folder, not beside the corpus", async () => {
  const corpusDir = join(dir, "corpora");
  mkdirSync(corpusDir);
  const corpus = join(corpusDir, "docs.jsonl");
  writeFileSync(corpus, `${JSON.stringify({ text: "a document" })}\n`);
  const config = parseRunConfig(
    { db: join(dir, "ws.sqlite"), seed: 1, iterations: 1, envsPerIteration: 1, plays: 1, hintPlays: 0, maxTurns: 1, backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m" }, corpus: { path: corpus }, training: null },
    "run.json",
  );
  const controller = new RunController({
    db,
    createBackend: async () => {
      throw new Error("no model in this test");
    },
  });
  const { runId } = await controller.start(config);
  expect(await controller.wait(runId)).toBe("failed");
  expect(readdirSync(corpusDir)).toEqual(["docs.jsonl"]);
  expect(readdirSync(join(dir, "cache", "corpora"))).toEqual([expect.stringMatching(/^docs\.jsonl-[0-9a-f]{16}\.spade-index$/)]);
  expect(buildRunReport(db, runId).runs[0]!.corpusSkipped).toBeNull();
});
