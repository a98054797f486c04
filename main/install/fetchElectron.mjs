// Postinstall: fetch the Electron binary where the network allows it.
// npm's allowScripts keeps electron's own postinstall from failing `npm ci` offline;
// here the same download runs, and a failure only means the workbench opens in browser mode.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { electronTarget, ensureBinding } from "./nativeBinding.mjs";

const require = createRequire(import.meta.url);
let installScript;
try {
  installScript = require.resolve("electron/install.js");
} catch {
  process.exit(0); // production install without devDependencies: nothing to fetch
}
if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) process.exit(0);
const result = spawnSync(process.execPath, [installScript], { stdio: "pipe", timeout: 300_000, encoding: "utf8" });
const binaryPathFile = installScript.replace(/install\.js$/, "path.txt");
if (result.status === 0 && existsSync(binaryPathFile)) {
  console.log("spade-workbench: Electron binary ready.");
  // The window's better-sqlite3 build, next to (never over) the Node build the CLI uses.
  const target = electronTarget();
  try {
    if (target && process.env.SPADE_SKIP_ELECTRON_SQLITE !== "1") ensureBinding(target, { log: (line) => console.log(line) });
  } catch (error) {
    console.log(`spade-workbench: ${/** @type {Error} */ (error).message}`);
    console.log("spade-workbench: `npm start` will try again, and serves the workbench in your browser while it cannot.");
  }
} else {
  const lines = (result.stderr || result.error?.message || "unknown error").split("\n");
  const reason = lines.find((line) => /error/i.test(line) && !/^\s+at /.test(line))?.trim() ?? (lines[0] ?? "").trim();
  console.log(`spade-workbench: the Electron binary could not be downloaded (${reason}).`);
  console.log("spade-workbench: `npm start` will serve the workbench in your browser on 127.0.0.1 instead.");
}
