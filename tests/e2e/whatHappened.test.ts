// What a researcher sees is what happened (issue 35), in Chromium against the real `spade serve`:
// a live run's bar moving through the design phase, a stop that asks first, run charts whose axes
// say what they measure, a play's end as it was stored, and the Models page while it checks.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, type LaunchedBrowser } from "../../main/bench/launchChromium.js";
import * as store from "../../main/store/index.js";
import type { RunProgressSnapshot } from "../../shared/api/runTypes.js";
import { buildUiFixture, fixtureCode } from "./support/fixture.js";
import { rendererBuilt, startServe, type ServeProcess } from "./support/startServe.js";

const shots = join(import.meta.dirname, "..", "..", "test-results");
let dir: string;
let dbPath: string;
let serve: ServeProcess;
let chromium: LaunchedBrowser;
let page: Page;
let liveRunId: number;
let chartRunId: number;
let endedRunId: number;
let gameId: number;
let cutOffEpisodeId: number;
let lostEpisodeId: number;
const errors: string[] = [];

/** Wall times a few seconds apart around a minute and a half: the axis that read "1.6 min" five times. */
const wallTimes = [95_200, 96_100, 97_400, 98_900];

function fillWorkspace(): void {
  const db = store.openDatabase(dbPath);
  try {
    // A run this test process owns, in its design phase: 2 of 4 games designed, nothing played yet.
    liveRunId = store.createRun(db, { name: "designing", config: { iterations: 2, envsPerIteration: 4 }, seed: 1, status: "running", ownerPid: process.pid }).id;
    const progress: RunProgressSnapshot = { iteration: 0, iterations: 2, phase: "designing", units: [{ name: "designed", done: 2, total: 4 }, { name: "played", done: 0, total: 64 }], training: null, etaMs: null, updatedAt: Date.now() };
    store.setRunProgress(db, liveRunId, process.pid, progress);

    // A completed fixed-pool run: four rollouts, new games in 0 and 2, replays in 1 and 3.
    chartRunId = store.createRun(db, { name: "fixed pool", config: { iterations: 4, designer: { kind: "fixed", set: "examples" } }, seed: 1, status: "completed" }).id;
    for (let it = 0; it < 4; it++) {
      store.startIteration(db, chartRunId, it);
      store.putMetrics(db, chartRunId, it, { validityRate: 1, meanWinRate: 0.25 * it, meanRegret: 0.1, episodes: 24, regeneration: it % 2 === 0 ? 1 : 0, wallTimeMs: wallTimes[it]!, designerMaskedRate: 0, designerRewardsScored: 0 });
      store.completeIteration(db, chartRunId, it);
    }
    store.setIterationsCompleted(db, chartRunId, 4);
    gameId = store.insertEnvironment(db, { runId: chartRunId, iteration: 0, slot: 0, attempt: 0, source: "fixed", code: fixtureCode, className: "GuessNumberEnv", valid: true });
    store.insertEpisodeWithTurns(db, { runId: chartRunId, environmentId: gameId, hinted: false, playIndex: 0, canary: true, return: 0 }, [{ action: "\\boxed{3}", observation: "Wrong, go higher.", reward: 0, terminated: false, truncated: false }]);
    // The reply filled its token budget: cut off, with the reason the loop stores.
    cutOffEpisodeId = store.insertEpisodeWithTurns(db, { runId: chartRunId, environmentId: gameId, hinted: false, playIndex: 1, return: 0 }, [{ action: "Once upon a time", observation: "", reward: 0, terminated: false, truncated: true, info: { stop: "length" } }]);
    // A game that ended lost.
    lostEpisodeId = store.insertEpisodeWithTurns(db, { runId: chartRunId, environmentId: gameId, hinted: true, playIndex: 0, return: -1 }, [
      { action: "\\boxed{9}", observation: "Wrong, go lower.", reward: 0, terminated: false, truncated: false },
      { action: "\\boxed{10}", observation: "Out of guesses.", reward: -1, terminated: true, truncated: false },
    ]);

    // An ended run whose every attempt was invalid.
    endedRunId = store.createRun(db, { name: "no code", config: { iterations: 1 }, seed: 1, status: "completed" }).id;
    store.startIteration(db, endedRunId, 0);
    store.putMetrics(db, endedRunId, 0, { validityRate: 0 });
    store.completeIteration(db, endedRunId, 0);
    store.insertEnvironment(db, { runId: endedRunId, iteration: 0, slot: 0, attempt: 0, source: "designer", code: null, valid: false, rawReply: "", validationError: "prompt too long (3639 > 2048 tokens): raise `backend.contextSize`" });
    store.setIterationsCompleted(db, endedRunId, 1);
  } finally {
    db.close();
  }
}

/** The value-axis tick labels of each chart on the page, by chart title. */
async function yTicks(): Promise<Record<string, string[]>> {
  const charts = page.locator("figure.chart");
  const result: Record<string, string[]> = {};
  for (let i = 0; i < (await charts.count()); i++) {
    const chart = charts.nth(i);
    result[(await chart.getAttribute("data-testid"))!] = await chart.locator(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value").allTextContents();
  }
  return result;
}

describe.skipIf(!rendererBuilt())("what a researcher sees is what happened", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "spade-what-happened-"));
    mkdirSync(shots, { recursive: true });
    dbPath = join(dir, "workspace.sqlite");
    buildUiFixture(dbPath);
    fillWorkspace();
    serve = await startServe(dbPath);
    chromium = await launchChromium();
    page = await chromium.browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on("pageerror", (error) => errors.push(error.message));
  });

  afterAll(async () => {
    await chromium?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("moves the progress bar through the design phase, and asks before a stop that cannot be undone", async () => {
    // The owner is alive (this process) and has just beaten: the run reads as running, not interrupted.
    const owner = store.openDatabase(dbPath);
    store.heartbeatRunLock(owner, liveRunId, process.pid);
    owner.close();
    await page.goto(`${serve.url}#/runs/${liveRunId}`);
    const view = page.getByTestId("run-view");
    const bar = view.getByTestId("run-progress").getByRole("progressbar");
    await bar.waitFor();
    expect(await bar.getAttribute("aria-label")).toContain("designed 2/4");
    expect(Number(await bar.getAttribute("aria-valuenow"))).toBeGreaterThan(0);

    // Stop asks first; Cancel leaves the run alone.
    await view.getByRole("button", { name: "Stop", exact: true }).click();
    const confirm = view.getByTestId("stop-confirm");
    expect(await confirm.innerText()).toMatch(/Stop run #\d+\? This cannot be undone here/);
    await page.screenshot({ path: join(shots, "stop-confirm.png") });
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await view.getByRole("button", { name: "Pause" }).waitFor();
    const db = store.openDatabase(dbPath);
    try {
      expect(store.readRunControlRequest(db, liveRunId, process.pid)).toBeNull();
      // Confirmed: the stop request waits in the store for the run's owner (this process), which stops the run.
      await view.getByRole("button", { name: "Stop", exact: true }).click();
      await confirm.getByRole("button", { name: "Stop run" }).click();
      await expect.poll(() => store.readRunControlRequest(db, liveRunId, process.pid), { timeout: 10_000 }).toBe("stop");
      store.settleRun(db, liveRunId, process.pid, "stopped");
    } finally {
      db.close();
    }
    await view.locator(".badge-stopped").waitFor({ timeout: 30_000 });
  });

  it("charts a fixed-pool run with axes that say what they measure", async () => {
    await page.goto(`${serve.url}#/runs/${chartRunId}`);
    const view = page.getByTestId("run-view");
    await view.getByTestId("chart-Iteration wall time").locator(".recharts-cartesian-axis-tick-value").first().waitFor();
    const ticks = await yTicks();
    // No chart repeats a tick label.
    for (const [chart, labels] of Object.entries(ticks)) expect(new Set(labels).size, `${chart}: ${labels.join(", ")}`).toBe(labels.length);
    expect(ticks["chart-Iteration wall time"]!.length).toBeGreaterThanOrEqual(3);
    // The regeneration flag on two named ticks, not a line on a -1..3 axis.
    expect(ticks["chart-New games or replayed"]).toEqual(["replayed", "new"]);
    // Counts in whole numbers.
    for (const label of ticks["chart-Episodes"]!) expect(label).toMatch(/^\d+$/);
    // The designer's measures are left out of a run without a designer, and the page says why.
    expect(Object.keys(ticks).some((chart) => /Designer/.test(chart))).toBe(false);
    expect(await view.getByTestId("charts-hidden").innerText()).toMatch(/^Not charted: designer masked rate, designer rewards scored: a fixed-pool run/);
    await page.screenshot({ path: join(shots, "run-charts-fixed-pool.png"), fullPage: true });
    // The Compare page leaves them out too, and says why.
    await page.goto(`${serve.url}#/compare?runs=${chartRunId}`);
    expect(await page.getByTestId("compare-charts-hidden").innerText()).toBe("Not charted: designer reward, novelty rate: the run has no designer; a fixed-pool run draws its games from an environment set, so no model designs and nothing scores a designer.");
    expect(await page.getByTestId("compare-view").getByTestId(/^chart-(Designer reward|Novelty rate)$/).count()).toBe(0);
  });

  it("says an ended run has no valid environment without 'yet'", async () => {
    await page.goto(`${serve.url}#/runs/${endedRunId}`);
    const banner = page.getByTestId("diagnosis-banner");
    await banner.waitFor();
    expect(await banner.innerText()).toMatch(/^No valid environment in this run\. /);
  });

  it("shows how each play ended, as stored: the stop reason of a cut-off reply, a lost game in red", async () => {
    await page.goto(`${serve.url}#/episodes/${cutOffEpisodeId}`);
    const cutOff = page.getByTestId("column-unhinted");
    expect(await cutOff.getByTestId("step-end").innerText()).toBe("truncated · stop: length");
    expect(await cutOff.locator("h3").innerText()).toMatch(/· 1 turn ·/);
    await page.goto(`${serve.url}#/episodes/${lostEpisodeId}`);
    const lost = page.getByTestId("column-hinted");
    // The key moves the slider of the episode on screen: wait until the lost episode has loaded.
    await lost.locator("h3").waitFor();
    await page.keyboard.press("End");
    const end = lost.getByTestId("step-end");
    expect(await end.innerText()).toBe("terminated · lost");
    expect(await end.getAttribute("class")).toContain("badge-end-bad");
    expect(await lost.locator("h3").innerText()).toMatch(/· 2 turns ·/);
    await page.screenshot({ path: join(shots, "episode-lost.png") });

    // The game's page numbers attempts from 1 (as `spade report`) and names the canary as one of the plays.
    await page.goto(`${serve.url}#/envs/${gameId}`);
    await page.getByTestId("env-view").waitFor();
    expect(await page.getByTestId("env-view").locator("header").innerText()).toContain("attempt 1");
    expect(await page.getByTestId("episode-list").locator("tbody tr").first().locator("td").nth(2).innerText()).toBe("0 (canary)");
  });

  it("shows the Models page checking this machine, and this machine's facts where Settings was", async () => {
    // Hold the trainer check until the page has been seen checking.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/api/checkTrainer", async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${serve.url}#/models`);
    await page.getByTestId("recommended-checking").waitFor();
    expect(await page.getByTestId("trainer-check").getAttribute("data-state")).toBe("checking");
    expect(await page.getByTestId("recommended-quantisation").first().innerText()).toContain("checking…");
    await page.screenshot({ path: join(shots, "models-checking.png") });
    release();
    await page.locator('[data-testid="trainer-check"][data-state="done"]').waitFor({ timeout: 120_000 });
    expect(await page.getByTestId("recommended-checking").count()).toBe(0);
    await page.unroute("**/api/checkTrainer");
    // No Settings page with nothing to set: the workspace facts are on the Models page, old links land there.
    expect(await page.locator("nav.nav").innerText()).not.toContain("Settings");
    expect(await page.getByTestId("settings-view").innerText()).toContain("workspace.sqlite");
    await page.goto(`${serve.url}#/settings`);
    await page.getByTestId("models-view").waitFor();
    expect(errors).toEqual([]);
  }, 180_000);
});
