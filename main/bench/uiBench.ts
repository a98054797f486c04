// `spade bench` section "ui": the renderer in headless Chromium against the loopback server on a
// workspace of 10,000 environments and a 1,000-turn episode.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Workbench } from "../api/Workbench.js";
import { appRoot } from "../paths.js";
import { startServer } from "../server/startServer.js";
import type { BenchSection } from "./BenchSection.js";
import { launchChromium } from "./launchChromium.js";
import { buildUiFixture } from "./uiFixture.js";

/** Runs in the page: in-app navigation, no reload. */
function setHash(hash: string): void {
  (globalThis as unknown as { location: { hash: string } }).location.hash = hash;
}

const ENVIRONMENTS = 10_000;
const TURNS = 1000;

export const uiBench: BenchSection = {
  name: "ui",
  async run(log) {
    const rendererDir = join(appRoot(), "out", "renderer");
    if (!existsSync(join(rendererDir, "index.html"))) throw new Error(`bench ui: the renderer is not built (${rendererDir}); run \`npm run build\``);
    const dir = mkdtempSync(join(tmpdir(), "spade-bench-ui-"));
    const dbPath = join(dir, "workspace.sqlite");
    const fixture = buildUiFixture(dbPath, { extraEnvironments: ENVIRONMENTS - 2, longEpisodeTurns: TURNS });
    const workbench = Workbench.open({ dbPath, runtime: null, runControl: null });
    const server = await startServer({ workbench, rendererDir });
    const chromium = await launchChromium();
    try {
      const page = await chromium.browser.newPage({ viewport: { width: 1400, height: 900 } });
      // Warm the HTTP cache once, as a returning user would have it.
      await page.goto(`${server.url}#/settings`);
      await page.getByTestId("settings-view").waitFor();

      let start = performance.now();
      await page.goto(`${server.url}#/runs`);
      await page.getByTestId("runs-table").waitFor();
      const firstRenderMs = performance.now() - start;
      log(`first render of #/runs: ${firstRenderMs.toFixed(0)} ms`);

      start = performance.now();
      await page.evaluate(setHash, `#/episodes/${fixture.longEpisodeId}`);
      await page.getByTestId("step-label").filter({ hasText: `step 1 / ${TURNS}` }).waitFor();
      await page.getByTestId("reward-timeline").locator("path.timeline-line").first().waitFor();
      const episode1000TurnsMs = performance.now() - start;
      log(`opening a ${TURNS}-turn episode: ${episode1000TurnsMs.toFixed(0)} ms`);

      await page.evaluate(setHash, `#/envs?run=${fixture.runIds[0]}`);
      const scroller = page.getByTestId("env-scroll");
      await page.locator(`[data-env-id="${fixture.envId}"]`).waitFor();
      start = performance.now();
      await scroller.evaluate((element) => element.scrollTo({ top: element.scrollHeight }));
      await page.locator(`.env-slot[data-index="${ENVIRONMENTS - 1}"] a`).waitFor();
      const envList10kMs = performance.now() - start;
      log(`scrolling ${ENVIRONMENTS} environments to the end: ${envList10kMs.toFixed(0)} ms`);
      return { firstRenderMs: Math.round(firstRenderMs), episode1000TurnsMs: Math.round(episode1000TurnsMs), envList10kMs: Math.round(envList10kMs) };
    } finally {
      await chromium.close();
      await server.close();
      await workbench.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
