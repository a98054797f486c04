// The workbench API on a run whose attempts are all invalid: getRun carries the diagnosis once an
// iteration is done, getEnvironment the designer's prompt and raw reply.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Workbench } from "../../../main/api/Workbench.js";
import { insertEnvironment } from "../../../main/store/queries/environments.js";
import { createRun, setIterationsCompleted, updateRunStatus } from "../../../main/store/queries/runs.js";

let dir: string;
let workbench: Workbench;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-diagnosis-"));
  workbench = Workbench.open({ dbPath: join(dir, "w.sqlite"), runtime: null, runControl: null });
});
afterAll(async () => {
  await workbench.close();
  rmSync(dir, { recursive: true, force: true });
});

const tooLong = "prompt too long (2417 > 2048 tokens): raise backend.contextSize or shorten the prompt";

describe("run diagnosis over the API", () => {
  it("appears after the first iteration of a run with no valid attempt, naming the reason", async () => {
    const db = workbench.db;
    const run = createRun(db, { config: { iterations: 2 }, seed: 1 });
    const prompt = [{ role: "user" as const, content: "Write a Python environment class." }];
    const first = insertEnvironment(db, { runId: run.id, iteration: 0, slot: 0, attempt: 0, source: "designer", code: null, valid: false, prompt, rawReply: "Once upon a time.", validationError: "the designer's reply has no ```python code block" });
    insertEnvironment(db, { runId: run.id, iteration: 0, slot: 0, attempt: 1, source: "repair", code: null, valid: false, prompt, rawReply: null, validationError: tooLong });
    insertEnvironment(db, { runId: run.id, iteration: 0, slot: 1, attempt: 0, source: "designer", code: null, valid: false, prompt, rawReply: null, validationError: tooLong });

    expect((await workbench.api.getRun({ runId: run.id })).diagnosis).toBeNull(); // iteration 0 still running
    setIterationsCompleted(db, run.id, 1);
    const detail = await workbench.api.getRun({ runId: run.id });
    expect(detail.diagnosis).toEqual({ kind: "promptTooLong", count: 2, total: 3, message: expect.stringContaining("2 of 3 designer prompts did not fit the model's context (2417 > 2048 tokens): raise backend.contextSize") });
    // A run without a corpus is not told to shorten a document it does not have.
    const bare = createRun(db, { config: { iterations: 1, corpus: null }, seed: 1 });
    insertEnvironment(db, { runId: bare.id, iteration: 0, slot: 0, attempt: 0, source: "designer", code: null, valid: false, prompt, rawReply: null, validationError: tooLong });
    updateRunStatus(db, bare.id, "completed");
    const bareDiagnosis = (await workbench.api.getRun({ runId: bare.id })).diagnosis!.message;
    expect(bareDiagnosis).toContain("show fewer memory references (memory.references; the run has no corpus document to shorten)");
    expect(bareDiagnosis).not.toContain("corpus.maxWords");

    const env = await workbench.api.getEnvironment({ envId: first });
    expect(env).toMatchObject({ prompt, rawReply: "Once upon a time.", valid: false });

    insertEnvironment(db, { runId: run.id, iteration: 1, slot: 0, attempt: 0, source: "designer", code: "class A: pass\n", valid: true });
    updateRunStatus(db, run.id, "completed");
    expect((await workbench.api.getRun({ runId: run.id })).diagnosis).toBeNull();
  });
});
