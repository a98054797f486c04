// The workbench end to end: the real `spade serve` on a filled workspace, driven in Debian's Chromium.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { launchChromium, type LaunchedBrowser } from "../../main/bench/launchChromium.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import type { ChatMessage } from "../../shared/llm.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fakeOpenAiServer.js";
import { selfPlayReply } from "../support/selfPlayScript.js";
import { buildUiFixture, type UiFixture } from "./support/fixture.js";
import { rendererBuilt, startServe, type ServeProcess } from "./support/startServe.js";

const shots = join(import.meta.dirname, "..", "..", "test-results");
let dir: string;
let fixture: UiFixture;
let serve: ServeProcess;
let chromium: LaunchedBrowser;
let page: Page;
let model: FakeOpenAiServer;
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
    // A scripted OpenAI-compatible model on loopback for the run started from the form.
    model = await startFakeOpenAiServer((request) => ({ json: { choices: [{ index: 0, message: { role: "assistant", content: selfPlayReply({ messages: request.body.messages as ChatMessage[] }) }, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 5 } } }));
    writeFileSync(join(dir, "corpus.jsonl"), ["DOC:magic doors", "DOC:riddle numbers"].map((text) => JSON.stringify({ text })).join("\n") + "\n");
    serve = await startServe(join(dir, "workspace.sqlite"));
    chromium = await launchChromium();
    page = await chromium.browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on("pageerror", (error) => errors.push(error.message));
  });

  afterAll(async () => {
    await chromium?.close();
    await serve?.stop();
    await model?.close();
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
    // Every training run carries the LoRA deviation's badge; the "no memory" run also its ablation.
    const badges = await page.getByTestId("ablations").allInnerTexts();
    expect(badges).toHaveLength(2);
    expect(badges.some((text) => text.includes("no memory"))).toBe(true);
    expect(badges.every((text) => text.includes("deviation: LoRA"))).toBe(true);
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

  it("an attempt without code offers nothing to play, and says why", async () => {
    const db = openDatabase(join(dir, "workspace.sqlite"));
    const envId = insertEnvironment(db, { source: "designer", code: null, valid: false, validationError: "the reply contained no Python code", rawReply: "Once upon a time" });
    db.close();
    await open(`#/envs/${envId}`);
    await page.getByTestId("no-play").waitFor({ timeout: 10_000 });
    expect(await page.getByTestId("no-play").innerText()).toMatch(/no code/);
    expect(await page.getByRole("button", { name: "Start playing" }).count()).toBe(0);
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
    expect(await page.getByTestId("compared-runs").innerText()).toContain("no memory");
    // The paper's table: the run whose adapters were evaluated has its latest adapter's score; the other is a gap.
    const heldOut = await page.getByTestId("held-out-table").innerText();
    expect(heldOut).toContain("gsm8k-100");
    expect(heldOut).toMatch(/36\.0/);
    expect(heldOut).toContain("–");
    await page.locator(".recharts-legend-item").first().waitFor();
    const regret = page.getByTestId("chart-Mean regret");
    expect(await regret.locator(".recharts-line").count()).toBe(2);
    // One colour per run, the same in every chart.
    const colours = async (title: string) => page.getByTestId(`chart-${title}`).locator(".recharts-line path.recharts-curve").evaluateAll((paths) => paths.map((p) => p.getAttribute("stroke")));
    const regretColours = await colours("Mean regret");
    expect(new Set(regretColours).size).toBe(2);
    expect(await colours("Validity rate")).toEqual(regretColours);
    await page.screenshot({ path: join(shots, "compare.png") });
  });

  it("edits code in Monaco, re-validates in the sandbox (marker on the failing line), saves a version and plays it by hand", async () => {
    await open(`#/envs/${fixture.envId}`);
    const editor = page.locator(".monaco-editor");
    await editor.locator(".view-lines").waitFor({ timeout: 30_000 });
    await expect.poll(async () => (await editor.locator(".view-lines").innerText()).replace(/\u00a0/g, " ")).toContain("class GuessNumberEnv");
    // A broken edit on a new last line (inside close()): a syntax error the validator places there.
    await editor.locator(".view-lines").click();
    await page.keyboard.press("Control+End");
    await page.keyboard.press("Enter");
    await page.keyboard.type("x = = 1");
    await page.getByRole("button", { name: "Validate" }).click();
    const panel = page.getByTestId("validation-panel");
    await panel.getByText("Re-validation").waitFor({ timeout: 60_000 });
    const lines = (await editor.evaluate((element) => element.querySelectorAll(".view-line").length)) as number;
    expect(lines).toBeGreaterThan(20);
    const report = await panel.innerText();
    expect(report).toContain("invalid");
    const failingLine = Number(/\(line (\d+)\)/.exec(report)?.[1]);
    expect(failingLine).toBeGreaterThan(20);
    // The squiggle sits on the row of the failing line.
    const squiggle = editor.locator(".squiggly-error").first();
    await squiggle.waitFor({ timeout: 10_000 });
    const brokenRow = editor.locator(".view-line", { hasText: /x\s=\s=\s1/ });
    const [squiggleBox, rowBox] = [await squiggle.boundingBox(), await brokenRow.boundingBox()];
    expect(Math.abs((squiggleBox?.y ?? 0) - (rowBox?.y ?? -100))).toBeLessThan(8);
    await page.screenshot({ path: join(shots, "env-broken-edit.png") });

    // Undo the broken line, make a harmless edit, validate, save as a new version.
    await page.getByRole("button", { name: "Revert" }).click();
    await editor.locator(".view-lines").click();
    await page.keyboard.press("Control+End");
    await page.keyboard.press("Enter");
    await page.keyboard.type("# edited in the workbench");
    await page.getByRole("button", { name: "Validate" }).click();
    await panel.getByText("Re-validation: valid").waitFor({ timeout: 60_000 });
    await page.getByRole("button", { name: "Save as new version" }).click();
    await page.waitForURL((url) => /#\/envs\/\d+$/.test(url.hash) && url.hash !== `#/envs/${fixture.envId}`, { timeout: 60_000 });
    const newId = Number(/#\/envs\/(\d+)/.exec(page.url())?.[1]);
    await page.getByTestId("env-view").getByText(`from #${fixture.envId}`).waitFor();
    const saved = await api("getEnvironment", { envId: newId });
    expect(saved.body.result).toMatchObject({ parentId: fixture.envId, source: "edit", valid: true });
    expect((saved.body.result as { code: string }).code).toContain("# edited in the workbench");

    // Play the new version by hand: seed 0 hides 7.
    const play = page.getByTestId("play-panel");
    await play.getByRole("button", { name: "Start playing" }).click();
    await play.getByTestId("play-log").getByText("Guess a number between 1 and 10").waitFor({ timeout: 60_000 });
    await play.getByLabel("action").fill("\\boxed{3}");
    await play.getByLabel("action").press("Enter");
    await play.getByText("Wrong, go higher.").waitFor();
    await play.getByLabel("action").fill("\\boxed{7}");
    await play.getByLabel("action").press("Enter");
    await play.getByText("Correct!").waitFor();
    const log = await play.getByTestId("play-log").innerText();
    expect(log).toContain("reward 1.000");
    expect(log).toContain("terminated · return 1.00");
    await page.screenshot({ path: join(shots, "env-play.png") });
  });

  it("#/models: a download that cannot reach its host fails at once with a visible message; adapters show lineage and scores", async () => {
    await open("#/models");
    // Before any download: each quantisation of a recommended model says whether it plays and trains here.
    // (the machine's memory comes from the trainer check, a Python process: wait for it before timing the download)
    await page.locator('[data-testid="recommended-models"]:not([data-memory="checking"])').waitFor({ timeout: 120_000 });
    const quantisation = page.getByTestId("recommended-quantisation").filter({ hasText: "Q4_K_M" }).first();
    expect(await quantisation.innerText()).toMatch(/Q4_K_M \([\d.]+ GB\): (plays and trains|plays|too big)/);
    const form = page.getByTestId("download-form");
    await form.getByLabel("model URI").fill("https://127.0.0.1:9/models/tiny.gguf");
    await form.getByRole("button", { name: "Download" }).click();
    await form.getByRole("alert").waitFor();
    // the connection probe's answer, given before any download (and its retries) starts
    expect(await form.getByRole("alert").innerText()).toMatch(/^Download failed: .*127\.0\.0\.1:9 cannot be reached \(ECONNREFUSED\)/s);
    const adapters = await page.getByTestId("adapters-table").innerText();
    expect(adapters).toContain("spade-it1");
    expect(adapters).toContain("36.0%");
    await page.getByTestId("adapters-table").getByRole("link", { name: /spade-it2/ }).click();
    await page.getByTestId("adapter-lineage").waitFor();
    expect(await page.getByTestId("adapter-lineage").innerText()).toBe("lineage: base model → spade-it1 → spade-it2");
    expect(await page.getByTestId("adapter-detail").innerText()).toContain("trl-sft");
    await page.screenshot({ path: join(shots, "models.png"), fullPage: true });
  }, 180_000);

  it("#/envs?set=<name> lists an environment set", async () => {
    await open(`#/envs?set=${fixture.envSetName}`);
    await page.getByTestId("env-set").waitFor();
    expect(await page.getByTestId("env-set").innerText()).toContain("GuessNumberEnv");
  });

  it("starts a run from the form: field errors beside the field, then live progress until it completes", async () => {
    await open("#/runs");
    await page.getByRole("button", { name: "New run" }).click();
    const form = page.getByTestId("start-run-form");
    // A local model trains by default, and the form says so; a server with the defaults is set to collect only.
    expect(await form.getByLabel("training", { exact: true }).inputValue()).toBe("gguf");
    expect(await form.getByTestId("training-note").innerText()).toMatch(/^Trains by default/);
    await form.getByLabel("backend").selectOption("openai");
    expect(await form.getByLabel("training", { exact: true }).inputValue()).toBe("off");
    expect(await form.getByTestId("training-note").innerText()).toContain("Hugging Face trainer");
    await form.getByLabel("Base URL").fill(model.baseUrl);
    await form.getByLabel("Model name").fill("scripted");
    await form.getByLabel("Corpus").fill("corpus.jsonl");
    await form.getByLabel("Iterations").fill("1");
    await form.getByLabel("Envs / iteration").fill("2");
    await form.getByLabel("Plays", { exact: true }).fill("two");
    await form.getByLabel("Hinted plays").fill("2");
    await form.getByLabel("Max turns").fill("3");
    await form.getByLabel("more settings").fill('{"backend": {"stream": false, "logprobs": false}}');
    await form.getByRole("button", { name: "Start" }).click();
    expect(await form.getByTestId("error-plays").innerText()).toMatch(/plays: expected .*"two"/);
    await page.screenshot({ path: join(shots, "start-run-error.png") });
    await form.getByLabel("Plays", { exact: true }).fill("2");
    await form.getByRole("button", { name: "Start" }).click();
    await page.waitForURL(/#\/runs\/\d+$/);
    const view = page.getByTestId("run-view");
    await view.getByRole("progressbar").waitFor({ timeout: 60_000 });
    await page.screenshot({ path: join(shots, "run-live.png") });
    await view.locator(".badge-completed").waitFor({ timeout: 90_000 });
    await expect.poll(async () => Number(await view.getByTestId("env-scroll").getAttribute("data-total")), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    await view.getByTestId("chart-Validity rate").waitFor();
  });

  it("filters the environment list from the URL", async () => {
    await open("#/envs?valid=false&q=Broken");
    await page.locator(`[data-env-id="${fixture.invalidEnvId}"]`).waitFor();
    expect(await page.getByTestId("env-scroll").getAttribute("data-total")).toBe("1");
  });

  it("corpus, evaluations and the workspace facts render real data", async () => {
    await open(`#/corpus/${encodeURIComponent(fixture.documentId)}`);
    expect(await page.getByTestId("document-panel").innerText()).toContain("GuessNumberEnv");
    await open("#/evaluations");
    await page.getByTestId("eval-comparison").waitFor();
    const table = await page.getByTestId("eval-comparison").innerText();
    expect(table).toContain("base model");
    expect(table).toContain("+5.0 pt"); // spade-it2 on gsm8k-100: 36% against the base's 31%
    const bars = page.getByTestId("chart-Held-out score per suite").locator(".recharts-bar-rectangle");
    await bars.first().waitFor();
    expect(await bars.count()).toBeGreaterThanOrEqual(4);
    await page.screenshot({ path: join(shots, "evaluations.png") });
    // The old Settings page's address opens the Models page, where the workspace and the trainer check now are.
    await open("#/settings");
    expect(await page.getByTestId("settings-view").innerText()).toContain("workspace.sqlite");
    // The trainer's Python, checked by the engine: the interpreter, torch (or what is missing), device and memory.
    const trainer = await page.locator('[data-testid="trainer-check"][data-state="done"]').innerText({ timeout: 120_000 });
    expect(trainer).toMatch(/Python\s+\S+ \(from (training\.python|SPADE_PYTHON|managed|PATH|debian|fallback)/);
    expect(trainer).toMatch(/Free memory\s+[\d.]+ GiB of [\d.]+ GiB|not ready|cannot/i);
    expect(errors).toEqual([]);
  }, 180_000);

  it("shows a failed extra check as a warning, apart from failures: the verdict, the row's sign and colour, a warning marker", async () => {
    // A game whose only fault is a reward outside [-1, 1]: valid under the reference's rule, with a warning.
    const code = readFileSync(join(import.meta.dirname, "..", "fixtures", "environments", "broken", "reward_out_of_range.py"), "utf8");
    const saved = await api("saveEnvironmentVersion", { parentId: fixture.envId, code });
    const { envId, validation } = saved.body.result as { envId: number; validation: { valid: boolean } };
    expect(validation.valid).toBe(true);
    await open(`#/envs/${envId}`);
    const editor = page.locator(".monaco-editor");
    await editor.locator(".view-lines").waitFor({ timeout: 30_000 });
    const panel = page.getByTestId("validation-panel");
    expect(await panel.locator("h4").innerText()).toContain("valid with 1 warning");
    const warned = panel.locator("li[data-status='warning']");
    expect(await warned.innerText()).toMatch(/⚠ reward_range \(warning: this project's check, not the reference's rule\)/);
    const colour = (selector: string) => panel.locator(selector).first().evaluate((element) => (globalThis as unknown as { getComputedStyle(node: unknown): { color: string } }).getComputedStyle(element).color);
    expect(await colour("li[data-status='warning']")).not.toBe(await colour("li[data-status='pass']"));
    expect(await panel.locator("li[data-status='fail']").count()).toBe(0);
    await editor.locator(".squiggly-warning").first().waitFor({ timeout: 10_000 });
    expect(await editor.locator(".squiggly-error").count()).toBe(0);
    await page.screenshot({ path: join(shots, "env-warning.png") });
  });
});
