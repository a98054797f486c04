// `npm start` where Electron cannot run: main/install/start.mjs serves the workbench on loopback,
// printing the address line, on the workspace SPADE_WORKSPACE names.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { rendererBuilt, spadeCli } from "../e2e/support/startServe.js";

const root = join(import.meta.dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "spade-start-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!rendererBuilt() || !existsSync(spadeCli))("npm start in browser mode", () => {
  it("prints the tokened address, serves the page and the API on the SPADE_WORKSPACE workspace, and stops on SIGTERM", async () => {
    const workspace = join(dir, "workspace.sqlite");
    const child = spawn(process.execPath, [join(root, "main", "install", "start.mjs")], {
      cwd: root,
      env: { ...process.env, SPADE_WORKSPACE: workspace, SPADE_BROWSER_MODE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      let stdout = "";
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const line = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no address line in 30 s; stderr: ${stderr}`)), 30_000);
        child.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
          const end = stdout.indexOf("\n");
          if (end >= 0) {
            clearTimeout(timer);
            resolve(stdout.slice(0, end));
          }
        });
      });
      expect(stderr).toContain("serving the workbench for your browser instead");
      const match = /^SPADE Workbench at (http:\/\/127\.0\.0\.1:\d+)\/\?token=(\S+)$/.exec(line);
      expect(match, line).not.toBeNull();
      const [, origin, token] = match!;
      const page = await fetch(`${origin}/?token=${token}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="root">');
      expect((await fetch(`${origin}/`)).status).toBe(401);
      const info = await fetch(`${origin}/api/getInfo`, { method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` }, body: "{}" });
      expect(await info.json()).toMatchObject({ ok: true, result: { workspacePath: workspace, shell: "browser" } });
      expect(existsSync(workspace)).toBe(true);

      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      await expect(fetch(`${origin}/?token=${token}`)).rejects.toThrow();
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
