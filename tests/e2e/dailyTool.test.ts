// The researcher's daily views in Chromium against the real `spade serve`: playing a tool-use
// environment by hand, the Environments list's run / skill / memory columns, a set's statistics
// across runs, and a run page that formats durations, explains empty charts and skipped hints.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, type LaunchedBrowser } from "../../main/bench/launchChromium.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fakeOpenAiServer.js";
import { startCli, type CliProcess } from "../support/startCli.js";
import * as store from "../../main/store/index.js";
import { putRunNote } from "../../main/store/queries/schedule.js";
import { buildUiFixture, fixtureCode, type UiFixture } from "./support/fixture.js";
import { rendererBuilt, startServe, type ServeProcess } from "./support/startServe.js";

const shots = join(import.meta.dirname, "..", "..", "test-results");
const ledger = readFileSync(join(import.meta.dirname, "..", "fixtures", "environments", "reference", "ledger_lookup.py"), "utf8");
let dir: string;
let fixture: UiFixture;
let serve: ServeProcess;
let chromium: LaunchedBrowser;
let page: Page;
let toolEnvId: number;
let pinnedEnvId: number;
let skippedEnvId: number;
let diagnosedRunId: number;
let storyteller: FakeOpenAiServer | null = null;
let cli: CliProcess | null = null;
const errors: string[] = [];

/** Adds to the UI fixture: a tool-use environment, memory flags, the set member played in a second run, and a run whose attempts all failed. */
function extendFixture(path: string): void {
  const db = store.openDatabase(path);
  try {
    const runB = fixture.runIds[1];
    toolEnvId = store.insertEnvironment(db, { source: "import", code: ledger, className: "LedgerLookupEnv", valid: true, skill: "Multi-step lookup" });
    pinnedEnvId = store.insertEnvironment(db, { runId: runB, iteration: 0, slot: 0, attempt: 0, source: "designer", code: "class PinnedEnv:\n    pass\n", className: "PinnedEnv", valid: true, skill: "Spatial Reasoning" });
    store.addToMemory(db, { environmentId: pinnedEnvId, runId: runB, skill: "Spatial Reasoning", code: "class PinnedEnv:\n    pass\n" });
    store.setPinned(db, pinnedEnvId, true);
    // A fixed-pool draw of the set's member in run B: its own stored copy, played there.
    const copy = store.insertEnvironment(db, { runId: runB, iteration: 1, slot: 0, attempt: 0, source: "fixed", code: fixtureCode, className: "GuessNumberEnv", valid: true });
    for (const [hinted, index, ret] of [[false, 0, 1], [false, 1, 1], [true, 0, 1]] as const) store.insertEpisodeWithTurns(db, { runId: runB, environmentId: copy, hinted, playIndex: index, return: ret }, []);
    // A run that cannot work: every attempt's prompt was too long; one game's hinted plays were skipped.
    const run = store.createRun(db, { name: "too long", config: { iterations: 2 }, seed: 1, status: "completed" });
    diagnosedRunId = run.id;
    for (let it = 0; it < 2; it++) {
      store.startIteration(db, run.id, it);
      store.putMetrics(db, run.id, it, { validityRate: 0, meanRegret: null, wallTimeMs: 141348 + it * 4_000_000 });
      store.completeIteration(db, run.id, it);
      store.insertEnvironment(db, { runId: run.id, iteration: it, slot: 0, attempt: 0, source: "designer", code: null, valid: false, rawReply: "", validationError: "prompt too long (3639 > 2048 tokens): raise `backend.contextSize`" });
    }
    store.setIterationsCompleted(db, run.id, 2);
    skippedEnvId = store.insertEnvironment(db, { runId: run.id, iteration: 1, slot: 1, attempt: 0, source: "designer", code: null, valid: false, rawReply: "" });
    putRunNote(db, run.id, 1, `hint skipped ${skippedEnvId}`, "the hint prompt does not fit the context (2301 > 2048 tokens); raise `backend.contextSize`");
  } finally {
    db.close();
  }
}

describe.skipIf(!rendererBuilt())("the daily views in Chromium against spade serve", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "spade-daily-"));
    mkdirSync(shots, { recursive: true });
    fixture = buildUiFixture(join(dir, "workspace.sqlite"));
    extendFixture(join(dir, "workspace.sqlite"));
    serve = await startServe(join(dir, "workspace.sqlite"));
    chromium = await launchChromium();
    page = await chromium.browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on("pageerror", (error) => errors.push(error.message));
  });

  afterAll(async () => {
    cli?.child.kill("SIGKILL");
    await storyteller?.close();
    await chromium?.close();
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("plays a tool-use environment by hand: its tools listed, a tool call written from them, the log on the newest turn", async () => {
    await page.goto(`${serve.url}#/envs/${toolEnvId}`);
    const play = page.getByTestId("play-panel");
    await play.getByRole("button", { name: "Start playing" }).click();
    const tools = play.getByTestId("play-tools");
    await tools.waitFor({ timeout: 60_000 });
    const listed = await tools.innerText();
    for (const text of ["find_accounts", "Account ids owned by a person", "owner", "get_balance", "Balance of one account", "list_owners"]) expect(listed).toContain(text);
    const input = play.getByLabel("action");
    expect(await input.getAttribute("placeholder")).not.toContain("boxed");
    expect(await input.getAttribute("placeholder")).toContain("<tool_call>");
    await tools.getByRole("button", { name: "use list_owners" }).click();
    expect(await input.inputValue()).toBe('<tool_call>{"name":"list_owners","arguments":{}}</tool_call>');
    const log = play.getByTestId("play-log");
    for (let turn = 1; turn <= 8; turn++) {
      await tools.getByRole("button", { name: "use list_owners" }).click();
      await input.press("Enter");
      await expect.poll(async () => (await log.innerText()).split("Tool result:").length - 1, { timeout: 30_000 }).toBe(turn);
    }
    // The log overflows its box and stays scrolled to the newest turn.
    const scroll = await log.evaluate((element) => ({ top: element.scrollTop, height: element.scrollHeight, client: element.clientHeight }));
    expect(scroll.height).toBeGreaterThan(scroll.client);
    expect(scroll.top + scroll.client).toBeGreaterThanOrEqual(scroll.height - 2);
    await page.screenshot({ path: join(shots, "play-tool-use.png") });
  }, 120_000);

  it("lists environments with run, skill and memory columns, filtered and sorted on them", async () => {
    await page.goto(`${serve.url}#/envs?memory=pinned`);
    const scroll = page.getByTestId("env-scroll");
    await expect.poll(async () => await scroll.getAttribute("data-total"), { timeout: 10_000 }).toBe("1");
    const row = page.locator(`[data-env-id="${pinnedEnvId}"]`);
    await row.waitFor();
    expect(await row.getByTestId("memory-state").innerText()).toBe("pinned · in memory");
    expect(await row.innerText()).toContain(`#${fixture.runIds[1]}`);
    expect(await row.innerText()).toContain("Spatial Reasoning");
    expect(await page.locator(".env-head").innerText()).toMatch(/run[\s\S]*skill[\s\S]*memory/);

    // Sorting from the column head: pinned first.
    await page.goto(`${serve.url}#/envs`);
    await page.locator(".env-head").getByRole("link", { name: "memory" }).click();
    await page.waitForURL(/order=memory/);
    await page.locator(".env-head a.sort.active", { hasText: "memory" }).waitFor();
    await page.locator(".env-slot").first().waitFor();
    await page.screenshot({ path: join(shots, "envs-by-memory.png") });
    const first = await page.locator(".env-slot").first().locator(".c-mem").innerText();
    expect(first).toBe("pinned · in memory");
    await page.goto(`${serve.url}#/envs?skill=Multi-step%20lookup`);
    await expect.poll(async () => await scroll.getAttribute("data-total"), { timeout: 10_000 }).toBe("1");
    await page.locator(`[data-env-id="${toolEnvId}"]`).waitFor();
  });

  it("shows a set member's statistics over every run that played it", async () => {
    await page.goto(`${serve.url}#/envs?set=${fixture.envSetName}`);
    const member = page.getByTestId("set-member").first();
    await member.waitFor();
    const cells = await member.locator("td").allInnerTexts();
    // Runs, plays (no hint / hint), win, hint win: run A's 3 + 2 plays and run B's 2 + 1.
    expect(cells.slice(2, 6)).toEqual(["2", "5 / 3", "80.0%", "100.0%"]);
  });

  it("formats a run page: durations in words, axis labels inside the tile, empty charts say why, skipped hints with their reason, no backticks", async () => {
    await page.goto(`${serve.url}#/runs/${diagnosedRunId}`);
    const view = page.getByTestId("run-view");
    await view.getByTestId("diagnosis-banner").waitFor({ timeout: 10_000 });
    const wall = view.getByTestId("chart-Iteration wall time");
    await wall.locator(".recharts-cartesian-axis-tick-value").first().waitFor();
    const ticks = await wall.locator(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value").allTextContents();
    expect(ticks.length).toBeGreaterThan(1);
    // One unit per label ("25 min", "1.3 h"): nothing wraps onto a second line.
    for (const tick of ticks) expect(tick).toMatch(/^-?[\d.]+ (ms|s|min|h)$/);
    expect(await wall.locator(".recharts-yAxis-tick-labels text").evaluateAll((elements) => elements.map((element) => element.querySelectorAll("tspan").length))).toEqual(ticks.map(() => 1));
    // Every tick label lies inside its tile (none clipped at the left edge).
    const tile = (await wall.boundingBox())!;
    for (const box of await wall.locator(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value").evaluateAll((elements) => elements.map((element) => element.getBoundingClientRect().left))) {
      expect(box).toBeGreaterThanOrEqual(tile.x);
    }
    expect(await view.getByTestId("chart-Mean regret").getByTestId("chart-empty").innerText()).toMatch(/^No values yet: /);
    const skipped = view.getByTestId("hints-skipped");
    expect(await skipped.innerText()).toContain("Hinted plays skipped for 1 game");
    expect(await skipped.innerText()).toContain("the hint prompt does not fit the context (2301 > 2048 tokens)");
    expect(await skipped.locator("code").innerText()).toBe("backend.contextSize");
    expect(await page.locator(`[data-env-id="${skippedEnvId}"]`).getByTestId("hint-skipped").innerText()).toBe("skipped");
    expect(await page.locator("body").innerText()).not.toContain("`");
    expect(await page.locator("body").innerText()).not.toContain("141348");
    expect(await page.locator('link[rel="icon"]').getAttribute("href")).toBeTruthy();
    await page.screenshot({ path: join(shots, "run-formatting.png"), fullPage: true });
    expect(errors).toEqual([]);
  });

  it("shows the diagnosis of a run that cannot work on its page while the run (from the CLI) still goes on", async () => {
    // A model that writes stories, never code: every designer attempt fails for the same reason.
    storyteller = await startFakeOpenAiServer(async () => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      return { json: { choices: [{ index: 0, message: { role: "assistant", content: "Once upon a time a little dog found a red ball." }, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 5 } } };
    });
    writeFileSync(join(dir, "stories.json"), JSON.stringify({
      db: "workspace.sqlite", name: "stories only", seed: 5, iterations: 200, envsPerIteration: 2, plays: 2, hintPlays: 1, maxTurns: 2, training: null, corpus: { path: "corpus.jsonl" },
      backend: { kind: "openai", baseUrl: storyteller.baseUrl, model: "storyteller", stream: false, logprobs: false, maxConcurrency: 2 },
    }));
    writeFileSync(join(dir, "corpus.jsonl"), ["DOC:magic doors", "DOC:riddle numbers"].map((text) => JSON.stringify({ text })).join("\n") + "\n");
    cli = startCli(["run", "--config", join(dir, "stories.json")]);
    void cli.done.then((exit) => exit.code !== 130 && console.error(`spade run exited ${exit.code}: ${exit.stderr}`));
    await page.goto(`${serve.url}#/runs`);
    await page.getByRole("link", { name: /stories only/ }).click({ timeout: 30_000 });
    const view = page.getByTestId("run-view");
    const banner = view.getByTestId("diagnosis-banner");
    await banner.waitFor({ timeout: 90_000 });
    expect(await banner.getAttribute("data-kind")).toBe("noCode");
    expect(await banner.innerText()).toMatch(/\d+ of \d+ replies contained no Python code/);
    // Live: the run is still going, and the banner came without a reload.
    expect(await view.locator(".badge-running").count()).toBe(1);
    cli.child.kill("SIGINT");
    expect((await cli.done).code).toBe(130);
    cli = null;
  }, 180_000);
});
