// Headless Chromium through playwright-core, with the flags that work on these machines.
import type { Browser } from "playwright-core";

export interface LaunchedBrowser {
  browser: Browser;
  close(): Promise<void>;
}

/** The system's Chromium: CHROMIUM_PATH, else Debian's /usr/bin/chromium. */
export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
}

export async function launchChromium(): Promise<LaunchedBrowser> {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]  // playwright gives each launch a fresh profile,
  });
  return {
    browser,
    async close() {
      await browser.close();
    },
  };
}
