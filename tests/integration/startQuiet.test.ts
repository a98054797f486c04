// `npm start` on a checkout whose workbench is not built yet builds it quietly: the address line
// comes without the build's logs before it; a failing build shows its output and the command.
// The script runs from a scratch root that has everything of the repository but `out/renderer`.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spadeCli } from "../e2e/support/startServe.js";

const repo = join(import.meta.dirname, "..", "..");
let scratch: string;

/** A root beside the repository: real copies of the start script and the build config, links to the rest, no renderer build. */
function scratchRoot(name: string): string {
  const root = join(scratch, name);
  mkdirSync(join(root, "main", "install"), { recursive: true });
  for (const file of ["start.mjs", "nativeBinding.mjs"]) copyFileSync(join(repo, "main", "install", file), join(root, "main", "install", file));
  for (const entry of readdirSync(join(repo, "main"))) if (entry !== "install") symlinkSync(join(repo, "main", entry), join(root, "main", entry));
  for (const entry of ["node_modules", "renderer", "electron", "shared", "resources", "package.json", "tsconfig.base.json", "tsconfig.json", "tsconfig.renderer.json", "tsconfig.engine.json"]) symlinkSync(join(repo, entry), join(root, entry));
  copyFileSync(join(repo, "electron.vite.config.ts"), join(root, "electron.vite.config.ts"));
  mkdirSync(join(root, "out"));
  symlinkSync(join(repo, "out", "engine"), join(root, "out", "engine"));
  return root;
}

function start(root: string, workspace: string) {
  const child = spawn(process.execPath, [join(root, "main", "install", "start.mjs")], { cwd: root, env: { ...process.env, SPADE_WORKSPACE: workspace, SPADE_BROWSER_MODE: "1" }, stdio: ["ignore", "pipe", "pipe"] });
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output, exited };
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "spade-start-quiet-"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.skipIf(!existsSync(spadeCli))("npm start on an unbuilt workbench", () => {
  it("builds quietly, then prints the address line with nothing of the build before it", async () => {
    const root = scratchRoot("quiet");
    const { child, output, exited } = start(root, join(scratch, "quiet.sqlite"));
    try {
      const deadline = Date.now() + 240_000;
      while (!output.stdout.includes("\n") && child.exitCode === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      expect(existsSync(join(root, "out", "renderer", "index.html")), output.stderr).toBe(true);
      expect(output.stdout).toMatch(/^SPADE Workbench at http:\/\/127\.0\.0\.1:\d+\/\?token=\S+\n$/);
      // One line before the build (it takes a minute or two), one saying why the browser, nothing from the build.
      expect(output.stderr).toMatch(/^spade-workbench: building the UI, first start only \(a minute or two\)\.\.\.\nspade-workbench: [^\n]*; serving the workbench for your browser instead\.\n$/);
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 300_000);

  it("shows a failing build's output and names the command, and exits non-zero", async () => {
    const root = scratchRoot("broken");
    writeFileSync(join(root, "electron.vite.config.ts"), "export default {{ this is not TypeScript\n");
    const { output, exited } = start(root, join(scratch, "broken.sqlite"));
    expect(await exited).not.toBe(0);
    expect(output.stdout).toBe("");
    expect(output.stderr).toMatch(/electron\.vite\.config\.ts/);
    expect(output.stderr).toMatch(/spade-workbench: building failed: `\S*electron-vite build` exited with \d+\n$/);
  }, 300_000);
});
