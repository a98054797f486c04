// The workbench API over a fixture workspace, in process: comparison, ablations, adapters with
// lineage and scores, environment sets, model downloads that cannot reach their host.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkbenchEvent } from "../../../shared/api/events.js";
import { checkCall } from "../../../shared/api/methodTable.js";
import { buildUiFixture, type UiFixture } from "../../../main/bench/uiFixture.js";
import { createBackendWithProgress } from "../../../main/api/EngineParts.js";
import { Workbench } from "../../../main/api/Workbench.js";
import { parseRunConfig } from "../../../shared/runConfig.js";

let dir: string;
let fixture: UiFixture;
let workbench: Workbench;
const events: WorkbenchEvent[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-api-"));
  fixture = buildUiFixture(join(dir, "w.sqlite"));
  workbench = Workbench.open({ dbPath: join(dir, "w.sqlite"), modelsDir: join(dir, "models"), runtime: null, runControl: null });
  workbench.events.subscribe((event) => events.push(event));
});

afterAll(async () => {
  await workbench.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("workbench API views", () => {
  it("names each run's ablations in the runs list", async () => {
    const runs = await workbench.api.listRuns({});
    // LoRA is this project's deviation on every training run: its badge stands beside the others.
    expect(runs.every((run) => run.ablations.some((badge) => badge.startsWith("deviation: LoRA")))).toBe(true);
    expect(Object.fromEntries(runs.map((run) => [run.name, run.ablations.filter((badge: string) => !badge.startsWith("deviation: LoRA"))]))).toEqual({ baseline: [], "no memory": ["no memory"] });
  });

  it("compares runs through compareRuns: metrics per iteration, summaries, and config keys a run lacks as unset", async () => {
    const view = await workbench.api.compareRuns({ runIds: fixture.runIds });
    expect(view.metrics).toContain("designerReward");
    expect(view.runs.map((run) => run.ablations.filter((badge: string) => !badge.startsWith("deviation: LoRA")))).toEqual([[], ["no memory"]]);
    expect(view.runs[0]!.iterations.map((row) => row.meanRegret)).toEqual([0.05, 0.1, 0.15000000000000002]);
    expect(view.runs[1]!.summary.validityRate).toBeCloseTo(0.6);
    expect(view.configDiff).toContainEqual({ key: "memory.enabled", values: [{ set: true, value: true }, { set: true, value: false }] });
    await expect(workbench.api.compareRuns({ runIds: [fixture.runIds[0], 999] })).rejects.toThrow(/no run 999/);
  });

  it("gives an adapter's lineage, children, manifest and scores", async () => {
    const detail = await workbench.api.getAdapter({ adapterId: fixture.adapterId });
    expect(detail.lineage.map((a) => a.name)).toEqual(["spade-it1"]);
    expect(detail.manifest).toEqual({ format: "trl-sft", counts: { lines: 96 } });
    expect(detail.evalResults.map((r) => [r.suite, r.accuracy ?? r.winRate])).toEqual([
      ["gsm8k-100", 0.36],
      ["heldout-envs", 0.5],
    ]);
    const parent = await workbench.api.getAdapter({ adapterId: fixture.parentAdapterId });
    expect(parent.childIds).toEqual([fixture.adapterId]);
    expect(parent.lineage).toEqual([]);
    expect(parent.baseModelSha256).toMatch(/^270cba/);
  });

  it("lists environment sets and their members", async () => {
    expect(await workbench.api.listEnvSets({})).toMatchObject([{ name: fixture.envSetName, members: 1 }]);
    const set = await workbench.api.getEnvSet({ name: fixture.envSetName });
    expect(set.items).toMatchObject([{ environmentId: fixture.envId, className: "GuessNumberEnv", winRate: 0.5 }]);
    await expect(workbench.api.getEnvSet({ name: "nope" })).rejects.toThrow(/no environment set "nope"/);
  });
});

describe("model downloads", () => {
  it("refuses what is not a model URI at the edge", () => {
    expect(() => checkCall("downloadModel", { uri: "/etc/passwd" })).toThrow(/downloadModel: field "uri" must be a model URI/);
    expect(checkCall("downloadModel", { uri: "hf:owner/repo/model.gguf" }).input).toEqual({ uri: "hf:owner/repo/model.gguf" });
  });

  it("fails at once when the host cannot be reached, and says so in a failed progress event", async () => {
    const uri = "https://127.0.0.1:9/models/tiny.gguf";
    // "cannot be reached (ECONNREFUSED)" is the connection probe's answer, given before any download (and its retries) starts
    await expect(workbench.api.downloadModel({ uri })).rejects.toThrow(/cannot download model https:\/\/127\.0\.0\.1:9\/models\/tiny\.gguf: 127\.0\.0\.1:9 cannot be reached \(ECONNREFUSED\)/);
    const mine = events.filter((event) => event.type === "modelProgress" && event.model === uri);
    expect(mine.map((event) => event.type === "modelProgress" && event.state)).toEqual(["active", "failed"]);
    expect(await workbench.api.cancelModelDownload({ uri })).toEqual({ cancelled: false });
  });

  it("reports a run's model load as progress events, failed with the reason", async () => {
    const seen: WorkbenchEvent[] = [];
    const base = { db: "w.sqlite", seed: 1, iterations: 1, envsPerIteration: 1, plays: 1, hintPlays: 0, maxTurns: 1, corpus: null };
    const openai = parseRunConfig({ ...base, backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m" } }, "test");
    const backend = await createBackendWithProgress(openai, (event) => seen.push(event));
    await backend.dispose();
    expect(seen.map((event) => event.type === "modelProgress" && [event.phase, event.state])).toEqual([
      ["load", "active"],
      ["load", "done"],
    ]);
    const missing = parseRunConfig({ ...base, backend: { kind: "llama", modelPath: join(dir, "missing.gguf") } }, "test");
    seen.length = 0;
    await expect(createBackendWithProgress(missing, (event) => seen.push(event))).rejects.toThrow();
    expect(seen[1]).toMatchObject({ type: "modelProgress", state: "failed", error: expect.stringContaining("missing.gguf") });
  });
});
