// The workbench end to end: the real `spade serve` on a filled workspace, driven in Debian's Chromium.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { launchChromium, type LaunchedBrowser } from "../../main/bench/launchChromium.js";
import { buildUiFixture, type UiFixture } from "./support/fixture.js";
import { rendererBuilt, startServe, type ServeProcess } from "./support/startServe.js";

const shots = join(import.meta.dirname, "..", "..", "test-results");
let dir: string;
let fixture: UiFixture;
let serve: ServeProcess;
let chromium: LaunchedBrowser;
let page: Page;
const errors: string[] = [];

async function api(method: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${serve.origin}/api/${method}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${serve.token}`, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { ok: boolean; result?: unknown; error?: { name: string; message: string } } };
}

async function open(hash: string) {
  await page.goto(`${serve.url}${hash}`);
}

describe.skipIf(!rendererBuilt())("workbench in Chromium against spade serve", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "spade-e2e-"));
    mkdirSync(shots, { recursive: true });
    fixture = buildUiFixture(join(dir, "workspace.sqlite"), { extraEnvironments: 30, longEpisodeTurns: 40 });
    serve = await startServe(join(dir, "workspace.sqlite"));
    chromium = await launchChromium();
    page = await chromium.browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on("pageerror", (error) => errors.push(error.message));
  });

  afterAll(async () => {
    await chromium?.close();
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses calls without the token (401) and from a foreign origin (403)", async () => {
    expect((await fetch(`${serve.origin}/`)).status).toBe(401);
    expect((await api("listRuns", {}, { Authorization: "Bearer wrong" })).status).toBe(401);
    const noToken = await fetch(`${serve.origin}/api/listRuns`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    expect(noToken.status).toBe(401);
    const foreign = await api("listRuns", {}, { Origin: "http://evil.example" });
    expect(foreign.status).toBe(403);
    const bad = await api("getRun", { runId: "one" });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.message).toContain('field "runId"');
    const socketStatus = await new Promise<number>((resolve) => {
      const socket = new WebSocket(`${serve.origin.replace("http", "ws")}/ws`);
      socket.on("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
      socket.on("open", () => resolve(101));
      socket.on("error", () => undefined);
    });
    expect(socketStatus).toBe(401);
  });

  it("#/runs lists the runs with their status", async () => {
    await open("#/runs");
    await page.getByTestId("runs-table").waitFor();
    const text = await page.getByTestId("runs-table").innerText();
    expect(text).toContain("baseline");
    expect(text).toContain("no memory");
    expect(text).toContain("paused");
    await page.screenshot({ path: join(shots, "runs.png") });
  });

  it("#/runs/<id> charts the metrics and lists the run's environments", async () => {
    await open(`#/runs/${fixture.runIds[0]}`);
    const chart = page.getByTestId("chart-Validity rate");
    await chart.waitFor();
    expect(await chart.getAttribute("data-points")).toBe("3");
    await page.locator(".recharts-line-dots circle").first().waitFor();
    expect(await chart.locator(".recharts-line-dots circle").count()).toBe(3);
    await page.locator(`[data-env-id="${fixture.envId}"]`).waitFor();
    expect(await page.getByTestId("env-scroll").getAttribute("data-total")).toBe("32");
    await page.screenshot({ path: join(shots, "run.png"), fullPage: true });
  });

  it("#/envs/<id> shows the code in Monaco, the hint, statistics and episodes", async () => {
    await open(`#/envs/${fixture.envId}`);
    await page.locator(".monaco-editor .view-lines").waitFor({ timeout: 30_000 });
    await expect.poll(async () => (await page.locator(".monaco-editor .view-lines").innerText()).replace(/\u00a0/g, " ")).toContain("class GuessNumberEnv");
    expect(await page.locator(".monaco-editor .mtk1, .monaco-editor [class*='mtk']").count()).toBeGreaterThan(5);
    expect(await page.getByTestId("hint").innerText()).toContain("Halve the range");
    expect(await page.getByTestId("stats-panel").innerText()).toContain("50.0%");
    expect(await page.getByTestId("episode-list").locator("tbody tr").count()).toBe(5);
    await page.screenshot({ path: join(shots, "env.png") });
  });

  it("an invalid environment shows its failing check as an editor marker on its line", async () => {
    await open(`#/envs/${fixture.invalidEnvId}`);
    await page.locator(".monaco-editor .view-lines").waitFor({ timeout: 30_000 });
    await page.locator(".monaco-editor .squiggly-error").first().waitFor({ timeout: 10_000 });
    expect(await page.getByTestId("validation-panel").innerText()).toContain("(line 6)");
  });

  it("pins an environment in memory", async () => {
    await open(`#/envs/${fixture.envId}`);
    const flags = page.getByTestId("memory-flags");
    await flags.getByRole("button", { name: "Pin" }).click();
    await flags.getByText("pinned").waitFor();
    const detail = await api("getEnvironment", { envId: fixture.envId });
    expect((detail.body.result as { memory: { pinned: boolean } }).memory.pinned).toBe(true);
  });

  it("#/episodes/<id> replays step by step with the hinted play beside it", async () => {
    await open(`#/episodes/${fixture.episodeId}`);
    await page.getByTestId("column-hinted").waitFor();
    await page.getByTestId("column-unhinted").waitFor();
    const label = page.getByTestId("step-label");
    expect(await label.innerText()).toBe("step 1 / 5");
    const action = page.getByTestId("column-unhinted").getByTestId("step-action");
    expect(await action.innerText()).toBe("\\boxed{1}");
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    expect(await label.innerText()).toBe("step 3 / 5");
    expect(await action.innerText()).toBe("\\boxed{3}");
    await page.keyboard.press("ArrowLeft");
    expect(await label.innerText()).toBe("step 2 / 5");
    expect(await page.getByTestId("column-unhinted").getByTestId("reward-timeline").getAttribute("data-points")).toBe("5");
    await page.screenshot({ path: join(shots, "episode.png") });
  });

  it("#/compare overlays two runs and names what differs", async () => {
    await open(`#/compare?runs=${fixture.runIds.join(",")}`);
    await page.getByTestId("config-diff").waitFor();
    expect(await page.getByTestId("config-diff").innerText()).toContain("memory.enabled");
    await page.locator(".recharts-legend-item").first().waitFor();
    expect(await page.getByTestId("chart-Mean regret").locator(".recharts-line").count()).toBe(2);
    await page.screenshot({ path: join(shots, "compare.png") });
  });

  it("filters the environment list from the URL", async () => {
    await open("#/envs?valid=false&q=Broken");
    await page.locator(`[data-env-id="${fixture.invalidEnvId}"]`).waitFor();
    expect(await page.getByTestId("env-scroll").getAttribute("data-total")).toBe("1");
  });

  it("corpus, models, evaluations and settings render real data", async () => {
    await open(`#/corpus/${encodeURIComponent(fixture.documentId)}`);
    expect(await page.getByTestId("document-panel").innerText()).toContain("GuessNumberEnv");
    await open("#/models");
    expect(await page.getByTestId("adapters-table").innerText()).toContain("spade-it2");
    await open("#/evaluations");
    await page.getByText("gsm8k-100").first().waitFor();
    expect(await page.getByTestId("evaluations-view").innerText()).toContain("36.0%");
    await open("#/settings");
    expect(await page.getByTestId("settings-view").innerText()).toContain("workspace.sqlite");
    expect(errors).toEqual([]);
  });
});
