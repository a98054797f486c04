// The README's quick start, as a newcomer follows it in the workbench: the story-word games imported
// with the command it gives, then in Chromium against the real `spade serve` the start form filled
// from resources/examples/quick-start.json as its "From the workbench" step says, on the real
// stories260K model (put where the download of the config's URI puts it: the hub cannot be reached
// here), training with the built-in trainer after every iteration, to the run page's Mean win rate
// chart with a point per iteration. Whether the rate rises is
// tests/integration/quickStartLearns.test.ts's verdict, on the same config.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, type LaunchedBrowser } from "../../main/bench/launchChromium.js";
import { pythonHasTorch } from "../../main/training/resolveTrainerPython.js";
import { rendererBuilt, spadeCli, startServe, type ServeProcess } from "./support/startServe.js";

const model = "/work/shared/models/stories260K.gguf";
const python = "/usr/bin/python3";
const root = join(import.meta.dirname, "..", "..");
const shots = join(root, "test-results");
const readme = readFileSync(join(root, "README.md"), "utf8");
/** The quick start's step that starts the run from the workbench. */
const uiStep = /^- \*\*From the workbench instead of `spade run`\*\*[\s\S]*?(?=^- \*\*)/m.exec(readme)?.[0] ?? "";
let dir: string;
let serve: ServeProcess;
let chromium: LaunchedBrowser;
let page: Page;
const errors: string[] = [];

describe.skipIf(!rendererBuilt() || !existsSync(model) || !pythonHasTorch(python))("the README's quick start", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "spade-quick-start-"));
    mkdirSync(shots, { recursive: true });
    const workspace = join(dir, "workspace.sqlite");
    // The README's import line, with this test's workspace for ~/.spade-workbench's.
    const line = /^npx spade (envs import --db \S+ --in resources\/environments\/story-words --set story-words)$/m.exec(readme)?.[1];
    expect(line, "the quick start's import command").toBeDefined();
    const args = line!.split(" ").map((word) => (word.endsWith("workspace.sqlite") ? workspace : word.startsWith("resources/") ? join(root, word) : word));
    const imported = spawnSync(process.execPath, [spadeCli, ...args], { encoding: "utf8" });
    expect(imported.status, imported.stderr).toBe(0);
    // The file the download writes, in the workspace's models folder (the Models page's).
    const file = /\(`(hf_[^`]+\.gguf)`\)/.exec(uiStep)?.[1];
    expect(file, "the quick start's model file").toBeDefined();
    mkdirSync(join(dir, "models"));
    copyFileSync(model, join(dir, "models", file!));
    serve = await startServe(workspace, { SPADE_PYTHON: python });
    chromium = await launchChromium();
    page = await chromium.browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on("pageerror", (error) => errors.push(error.message));
  });

  afterAll(async () => {
    await chromium?.close();
    await serve?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("starts the quick-start run from the form filled from its config file, to the win-rate chart of every iteration", async () => {
    const example = /\*Fill from a run config file\*: `([^`]+)`[\s\S]*?`(resources\/examples\/)`/.exec(uiStep);
    expect(example, "the quick start's config file").not.toBeNull();
    const configFile = join(root, example![2]!, example![1]!);
    const config = JSON.parse(readFileSync(configFile, "utf8")) as { iterations: number };

    await page.goto(`${serve.url}#/runs`);
    await page.getByRole("button", { name: "New run" }).click();
    const form = page.getByTestId("start-run-form");
    // A file that is not a run config is refused beside the control, naming the file.
    await form.getByLabel("run config file").setInputFiles({ name: "notes.json", mimeType: "application/json", buffer: Buffer.from("{ not json") });
    expect(await form.getByTestId("error-configFile").innerText()).toMatch(/^notes\.json: not JSON: /);
    await form.getByLabel("run config file").setInputFiles(configFile);
    await form.getByTestId("error-configFile").waitFor({ state: "detached" });
    await expect.poll(() => form.getByLabel("Iterations", { exact: true }).inputValue(), { timeout: 60_000 }).toBe(String(config.iterations));
    expect(await form.getByLabel("model path").inputValue()).toBe("hf:ggml-org/models-moved/tinyllamas/stories260K.gguf");
    expect(await form.getByLabel("environment set").inputValue()).toBe("story-words");
    expect(await form.getByLabel("training", { exact: true }).inputValue()).toBe("gguf");
    expect(JSON.parse(await form.getByLabel("more settings").inputValue())).toMatchObject({ agent: { stop: ["."] }, training: { hyper: { learningRate: 0.006, rank: 4 } } });
    await page.screenshot({ path: join(shots, "quick-start-form.png"), fullPage: true });
    await form.getByRole("button", { name: "Start" }).click();
    await page.waitForURL(/#\/runs\/\d+$/);
    const view = page.getByTestId("run-view");
    // The run's own status, in its heading (each training round has a status badge too).
    const status = view.locator("h2").first();
    await status.locator(".badge-completed, .badge-failed, .badge-stopped").waitFor({ timeout: 500_000 });
    expect(await status.locator(".badge").innerText()).toBe("completed");
    // The badges the README names: the stop strings and the LoRA rate.
    const text = await view.innerText();
    expect(text).toContain('agent replies stop at "."');
    expect(text).toContain("LoRA rank 4 at lr 0.006");
    const winRate = view.getByTestId("chart-Mean win rate");
    await winRate.waitFor();
    expect(await winRate.getAttribute("data-points")).toBe(String(config.iterations));
    expect(await winRate.getAttribute("data-ticks")).toBe("0%|25%|50%|75%|100%");
    await page.screenshot({ path: join(shots, "quick-start.png"), fullPage: true });
    expect(errors).toEqual([]);
  }, 600_000);
});
