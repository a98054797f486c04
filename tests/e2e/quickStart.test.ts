// The README's quick start, as a newcomer follows it: the bundled examples imported with the
// command it gives, then in Chromium against the real `spade serve` the start form set to a fixed
// pool of them on the real stories260K model (in place of the download, which needs the network),
// training off, three iterations, to the run page's charts.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, type LaunchedBrowser } from "../../main/bench/launchChromium.js";
import { rendererBuilt, spadeCli, startServe, type ServeProcess } from "./support/startServe.js";

const model = "/work/shared/models/stories260K.gguf";
const root = join(import.meta.dirname, "..", "..");
const shots = join(root, "test-results");
let dir: string;
let serve: ServeProcess;
let chromium: LaunchedBrowser;
let page: Page;
const errors: string[] = [];

describe.skipIf(!rendererBuilt() || !existsSync(model))("the README's quick start", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "spade-quick-start-"));
    mkdirSync(shots, { recursive: true });
    const workspace = join(dir, "workspace.sqlite");
    // The README's import line, with this test's workspace for ~/.spade-workbench's.
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const line = /^npx spade (envs import --db \S+ --in resources\/environments --set examples)$/m.exec(readme)?.[1];
    expect(line, "the quick start's import command").toBeDefined();
    const args = line!.split(" ").map((word) => (word.endsWith("workspace.sqlite") ? workspace : word.startsWith("resources/") ? join(root, word) : word));
    const imported = spawnSync(process.execPath, [spadeCli, ...args], { encoding: "utf8" });
    expect(imported.status, imported.stderr).toBe(0);
    serve = await startServe(workspace);
    chromium = await launchChromium();
    page = await chromium.browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on("pageerror", (error) => errors.push(error.message));
  });

  afterAll(async () => {
    await chromium?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("runs a fixed pool of the examples from the start form to the win-rate chart", async () => {
    await page.goto(`${serve.url}#/runs`);
    await page.getByRole("button", { name: "New run" }).click();
    const form = page.getByTestId("start-run-form");
    await form.getByLabel("model file").selectOption({ label: "another path or a model URI…" });
    await form.getByLabel("model path").fill(model);
    await form.getByLabel("designer", { exact: true }).selectOption("fixed");
    await form.getByLabel("environment set").selectOption("examples");
    await form.getByLabel("Iterations").fill("3");
    expect(await form.getByTestId("training-note").innerText()).toMatch(/^Trains by default/);
    await form.getByLabel("training", { exact: true }).selectOption("off");
    await form.getByRole("button", { name: "Start" }).click();
    await page.waitForURL(/#\/runs\/\d+$/);
    const view = page.getByTestId("run-view");
    await view.locator(".badge-completed, .badge-failed").first().waitFor({ timeout: 400_000 });
    expect(await view.locator(".badge-completed").count()).toBe(1);
    const winRate = view.getByTestId("chart-Mean win rate");
    await winRate.waitFor();
    expect(await winRate.getAttribute("data-points")).toBe("3");
    expect(await winRate.getAttribute("data-ticks")).toBe("0%|25%|50%|75%|100%");
    await page.screenshot({ path: join(shots, "quick-start.png"), fullPage: true });
    expect(errors).toEqual([]);
  }, 480_000);
});
