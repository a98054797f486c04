// The Corpus page shows what the runs' corpora left out, beside the documents (not only on stderr).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, type LaunchedBrowser } from "../../main/bench/launchChromium.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { putCorpusSkipped, upsertDocument } from "../../main/store/queries/documents.js";
import { buildUiFixture, type UiFixture } from "./support/fixture.js";
import { rendererBuilt, startServe, type ServeProcess } from "./support/startServe.js";

let dir: string;
let fixture: UiFixture;
let serve: ServeProcess;
let chromium: LaunchedBrowser;

describe.skipIf(!rendererBuilt())("the Corpus page in Chromium", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "spade-e2e-corpus-"));
    const path = join(dir, "workspace.sqlite");
    fixture = buildUiFixture(path, {});
    const db = openDatabase(path);
    putCorpusSkipped(db, fixture.runIds[0]!, "corpus /data/docs.jsonl: 1 line is not a document and left out (/data/docs.jsonl:7: field text must be a string, found a number)");
    // A JSONL line without a title: listed by the start of its text, not by its id.
    upsertDocument(db, { id: "docs.jsonl:3:ab12cd", corpus: "docs.jsonl", title: null, text: "The lighthouse keeper\n  counted   ships every night, and wrote each one down in a ledger that nobody ever read until the storm of 1893.", words: 21 });
    db.close();
    serve = await startServe(path);
    chromium = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists the lines a run's corpus left out, with the run, above the documents", async () => {
    const page = await chromium.browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`${serve.url}#/corpus`);
    const problems = page.getByTestId("corpus-problems");
    await problems.waitFor();
    const text = await problems.innerText();
    expect(text).toContain(`run ${fixture.runIds[0]}`);
    expect(text).toContain("/data/docs.jsonl:7: field text must be a string, found a number");
    expect(await problems.locator("a").getAttribute("href")).toBe(`#/runs/${fixture.runIds[0]}`);
    const untitled = page.getByTestId("document-link").filter({ hasText: "lighthouse" });
    expect(await untitled.innerText()).toBe("The lighthouse keeper counted ships every night, and wrote each one down in a l…");
    expect(await untitled.getAttribute("title")).toBe("docs.jsonl:3:ab12cd");
    expect(await page.getByTestId("document-link").filter({ hasText: "Binary search" }).count()).toBe(1);
    expect(errors).toEqual([]);
  }, 120_000);
});
