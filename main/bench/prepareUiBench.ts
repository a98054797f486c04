// What the "ui" bench section needs first: the built renderer (built here when missing, as
// `npm run bench` runs straight from the engine build) and a Chromium to drive.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { appRoot } from "../paths.js";
import { BenchSkipped } from "./BenchSkipped.js";
import { chromiumPath } from "./launchChromium.js";

export async function prepareUiBench(log: (line: string) => void): Promise<void> {
  const browser = chromiumPath();
  if (!existsSync(browser)) throw new BenchSkipped(`no Chromium at ${browser} (install Debian's chromium, or set CHROMIUM_PATH)`);
  const root = appRoot();
  if (existsSync(join(root, "out", "renderer", "index.html"))) return;
  const builder = join(root, "node_modules", ".bin", process.platform === "win32" ? "electron-vite.cmd" : "electron-vite");
  if (!existsSync(builder)) throw new BenchSkipped(`the renderer is not built (${join(root, "out", "renderer")}) and electron-vite is not installed to build it (npm ci installs the dev dependencies)`);
  log("building the renderer (electron-vite build)...");
  const build = spawnSync(builder, ["build"], { cwd: root, encoding: "utf8", shell: process.platform === "win32", maxBuffer: 64 * 1024 * 1024 });
  if (build.status !== 0 || !existsSync(join(root, "out", "renderer", "index.html"))) {
    const lines = `${build.stderr ?? ""}\n${build.stdout ?? ""}`.split("\n").map((line) => line.trim()).filter(Boolean);
    throw new BenchSkipped(`the renderer could not be built (\`electron-vite build\` exited ${build.status ?? build.error?.message}): ${lines.slice(-2).join(" / ")}`);
  }
}
