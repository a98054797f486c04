// The start form's config is refused before a run exists when its sources cannot be used, as
// `spade run` refuses it: no failed run left behind.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Workbench } from "../../../main/api/Workbench.js";
import { listRuns } from "../../../main/store/queries/runs.js";

let dir: string;
let workbench: Workbench;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-start-refusals-"));
  workbench = Workbench.open({ dbPath: join(dir, "w.sqlite"), modelsDir: join(dir, "models") });
});
afterAll(async () => {
  await workbench?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("startRun", () => {
  it("refuses a corpus with no documents and an unreachable model URI before any run exists", async () => {
    writeFileSync(join(dir, "empty.jsonl"), "\n");
    const base = { seed: 1, iterations: 1, envsPerIteration: 1, plays: 1, hintPlays: 1, maxTurns: 2, training: null };
    await expect(workbench.api.startRun({ config: { ...base, backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m" }, corpus: { path: join(dir, "empty.jsonl") } } })).rejects.toThrow(
      /run config: corpus\.path: corpus .*empty\.jsonl holds no documents/,
    );
    await expect(workbench.api.startRun({ config: { ...base, backend: { kind: "llama", modelPath: "https://127.0.0.1:9/tiny.gguf" }, corpus: null } })).rejects.toThrow(
      /run config: backend\.modelPath: cannot download model https:\/\/127\.0\.0\.1:9\/tiny\.gguf: 127\.0\.0\.1:9 cannot be reached/,
    );
    expect(listRuns(workbench.db)).toEqual([]);
  });
});
