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
import { timeInPage, type TimedAction } from "./timeInPage.js";
import { buildUiFixture } from "./uiFixture.js";

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

      const start = performance.now();
      await page.goto(`${server.url}#/runs`);
      await page.getByTestId("runs-table").waitFor();
      const firstRenderMs = performance.now() - start;
      log(`first render of #/runs: ${firstRenderMs.toFixed(0)} ms`);

      // Every turn loaded (the label counts them) and the reward timeline drawn with all of them.
      const openEpisode: TimedAction = {
        action: "hash",
        target: `#/episodes/${fixture.longEpisodeId}`,
        wanted: [
          { selector: '[data-testid="step-label"]', text: `step 1 / ${TURNS}` },
          { selector: `[data-testid="reward-timeline"][data-points="${TURNS}"] path.timeline-line` },
        ],
      };
      const episode1000TurnsMs = await page.evaluate(timeInPage, openEpisode);
      log(`opening a ${TURNS}-turn episode: ${episode1000TurnsMs.toFixed(0)} ms`);

      const openList: TimedAction = { action: "hash", target: `#/envs?run=${fixture.runIds[0]}`, wanted: [{ selector: `[data-env-id="${fixture.envId}"]` }] };
      await page.evaluate(timeInPage, openList);
      const scrollToEnd: TimedAction = { action: "scrollEnd", target: '[data-testid="env-scroll"]', wanted: [{ selector: `.env-slot[data-index="${ENVIRONMENTS - 1}"] a` }] };
      const envList10kMs = await page.evaluate(timeInPage, scrollToEnd);
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
