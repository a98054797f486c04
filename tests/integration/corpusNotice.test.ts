import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { RunController, type RunControllerEvent } from "../../main/selfplay/RunController.js";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";

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

it("tells the researcher, when a run opens its corpus, which lines were left out", async () => {
  const corpus = join(dir, "docs.jsonl");
  writeFileSync(corpus, [JSON.stringify({ text: "a document" }), "{broken", JSON.stringify({ title: "no text" })].join("\n"));
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
  expect(notice && "message" in notice ? notice.message : "").toMatch(
    new RegExp(`corpus .*docs\\.jsonl: 2 lines are not a document and left out \\(.*docs\\.jsonl:2: invalid JSON .*; .*docs\\.jsonl:3: expected a string field "text" or "orig_doc"; found fields "title"\\)`),
  );
});
