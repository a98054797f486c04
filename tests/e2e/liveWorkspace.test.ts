// One live workspace: a run started by `spade run` in another process is followed live by a page
// of `spade serve` in Chromium (state, progress, iterations), and paused from the window.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, type LaunchedBrowser } from "../../main/bench/launchChromium.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import type { ChatMessage } from "../../shared/llm.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fakeOpenAiServer.js";
import { selfPlayReply } from "../support/selfPlayScript.js";
import { startCli, type CliProcess } from "../support/startCli.js";
import { rendererBuilt, startServe, type ServeProcess } from "./support/startServe.js";

let dir: string;
let serve: ServeProcess;
let chromium: LaunchedBrowser;
let page: Page;
let model: FakeOpenAiServer;
let cli: CliProcess | null = null;

describe.skipIf(!rendererBuilt())("a CLI run seen live by a browser page of spade serve", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "spade-live-"));
    model = await startFakeOpenAiServer(async (request) => {
      await new Promise((r) => setTimeout(r, 40)); // slow enough to watch
      return { json: { choices: [{ index: 0, message: { role: "assistant", content: selfPlayReply({ messages: request.body.messages as ChatMessage[] }) }, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 5 } } };
    });
    writeFileSync(join(dir, "corpus.jsonl"), ["DOC:magic doors", "DOC:riddle numbers"].map((text) => JSON.stringify({ text })).join("\n") + "\n");
    writeFileSync(join(dir, "run.json"), JSON.stringify({
      db: "workspace.sqlite", name: "from the terminal", seed: 3, iterations: 40, envsPerIteration: 2, plays: 3, hintPlays: 2, maxTurns: 3,
      backend: { kind: "openai", baseUrl: model.baseUrl, model: "scripted", stream: false, logprobs: false, maxConcurrency: 2 }, training: null,
      corpus: { path: "corpus.jsonl" },
    }));
    serve = await startServe(join(dir, "workspace.sqlite"));
    chromium = await launchChromium();
    page = await chromium.browser.newPage({ viewport: { width: 1400, height: 900 } });
  });

  afterAll(async () => {
    cli?.child.kill("SIGKILL");
    await chromium?.close();
    await serve?.stop();
    await model?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("follows the run's state, progress and iterations, and pauses it from the window", async () => {
    await page.goto(`${serve.url}#/runs`);
    await page.getByText("No runs yet").waitFor();
    cli = startCli(["run", "--config", join(dir, "run.json")]);
    // The runs list (loaded before the run existed) shows it running, with its progress in one line.
    const table = page.getByTestId("runs-table");
    await table.locator(".badge-running").waitFor({ timeout: 30_000 });
    await expect.poll(async () => await table.innerText(), { timeout: 30_000 }).toMatch(/iteration 0 of 40 · \w+.*played \d+\/\d+/);

    await page.getByRole("link", { name: /#1 from the terminal/ }).click();
    const view = page.getByTestId("run-view");
    await view.getByTestId("run-progress").waitFor({ timeout: 10_000 });
    // The page follows the iterations the other process completes, without a reload.
    await expect.poll(async () => await view.innerText(), { timeout: 60_000 }).toMatch(/seed 3 · [1-9] \/ 40 iterations/);
    await expect.poll(async () => await view.getByTestId("run-progress").innerText(), { timeout: 10_000 }).toMatch(/about .* left/);

    await view.getByRole("button", { name: "Pause" }).click();
    const exited = await cli.done;
    expect(exited.code, exited.stderr).toBe(130);
    await view.locator(".badge-paused").waitFor({ timeout: 10_000 });
    await view.getByRole("button", { name: "Resume" }).waitFor();
    const db = openDatabase(join(dir, "workspace.sqlite"), { readonly: true });
    try {
      expect(db.prepare("SELECT status, owner_pid FROM runs WHERE id = 1").get()).toEqual({ status: "paused", owner_pid: null });
    } finally {
      db.close();
    }
  }, 180_000);
});
