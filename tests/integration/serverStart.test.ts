// Starting the loopback server: the styled 401 page, a malformed %-encoded method name (400),
// a taken port (the error names --port), the remembered port and token of `spade serve`
// (bookmarks survive restarts), and --token / SPADE_TOKEN.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Workbench } from "../../main/api/Workbench.js";
import { PortInUseError } from "../../main/server/PortInUseError.js";
import { serverStatePath } from "../../main/server/serverState.js";
import { startServer } from "../../main/server/startServer.js";
import { spadeCli } from "../e2e/support/startServe.js";

const dir = mkdtempSync(join(tmpdir(), "spade-serverstart-"));
let workbench: Workbench;
beforeAll(() => {
  workbench = Workbench.open({ dbPath: join(dir, "w.sqlite"), runtime: null, runControl: null });
});
afterAll(async () => {
  await workbench.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Holds a loopback port until released. */
async function occupyPort(port = 0): Promise<{ port: number; release(): Promise<void> }> {
  const holder: Server = createServer();
  await new Promise<void>((resolve) => holder.listen(port, "127.0.0.1", () => resolve()));
  const address = holder.address();
  return { port: typeof address === "object" && address ? address.port : port, release: () => new Promise<void>((resolve) => holder.close(() => resolve())) };
}

describe("startServer", () => {
  it("answers a page request without the token with a styled HTML 401 saying how to get the address", async () => {
    const server = await startServer({ workbench, addressHint: "Run `spade serve` again & copy its line." });
    try {
      const response = await fetch(`http://127.0.0.1:${server.port}/`);
      expect(response.status).toBe(401);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      const page = await response.text();
      expect(page).toMatch(/^<!doctype html>/);
      expect(page).toContain("<style>");
      expect(page).toContain("401");
      expect(page).toContain("Run `spade serve` again &#38; copy its line.");
      expect(page).not.toContain(server.token);
      const wrong = await fetch(`http://127.0.0.1:${server.port}/?token=not-the-token`);
      expect(wrong.status).toBe(401);
      expect(await wrong.text()).toContain("needs its token");
    } finally {
      await server.close();
    }
  });

  it("answers a malformed %-encoding in the method name with 400, not 500", async () => {
    const server = await startServer({ workbench });
    try {
      for (const path of ["/api/%E0%A4%A", "/api/get%ZZInfo", "/api/%"]) {
        const response = await fetch(`http://127.0.0.1:${server.port}${path}`, { method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${server.token}` }, body: "{}" });
        expect(response.status, path).toBe(400);
        expect(await response.json()).toMatchObject({ ok: false, error: { name: "ApiInputError", message: expect.stringContaining("%-encoding") } });
      }
      const fine = await fetch(`http://127.0.0.1:${server.port}/api/getInfo`, { method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${server.token}` }, body: "{}" });
      expect(fine.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("refuses a taken port with an error naming the option, and falls back from a taken remembered port", async () => {
    const held = await occupyPort();
    try {
      const failure = await startServer({ workbench, port: held.port, portOption: "--port" }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(PortInUseError);
      expect((failure as Error).message).toContain(`port ${held.port}`);
      expect((failure as Error).message).toContain("--port <n>");
      const fallback = await startServer({ workbench, preferredPort: held.port });
      expect(fallback.port).not.toBe(held.port);
      await fallback.close();
    } finally {
      await held.release();
    }
    // A free preferred port is kept.
    const free = await occupyPort();
    await free.release();
    const kept = await startServer({ workbench, preferredPort: free.port });
    expect(kept.port).toBe(free.port);
    await kept.close();
  });
});

/** Starts the built `spade serve`, returns its address line's parts and a stop function. */
async function serve(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [spadeCli, "serve", ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, SPADE_TOKEN: "", ...env } });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const line = await new Promise<string | null>((resolve) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes("\n")) resolve(stdout.slice(0, stdout.indexOf("\n")));
    });
    void exited.then(() => resolve(null));
  });
  const match = line ? /^SPADE Workbench at http:\/\/127\.0\.0\.1:(\d+)\/\?token=(\S+)$/.exec(line) : null;
  return {
    port: match ? Number(match[1]) : null,
    token: match ? match[2]! : null,
    stderr: () => stderr,
    exited,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

describe.skipIf(!existsSync(spadeCli))("spade serve across restarts", () => {
  it("keeps the port and the token for the same workspace, so a bookmark still opens", async () => {
    const db = join(dir, "bookmarks.sqlite");
    const first = await serve(["--db", db]);
    expect(first.port, first.stderr()).not.toBeNull();
    expect(await first.stop()).toBe(0);
    const state = JSON.parse(readFileSync(serverStatePath(db), "utf8")) as { port: number; token: string };
    expect(state).toEqual({ port: first.port, token: first.token });
    expect(statSync(serverStatePath(db)).mode & 0o077).toBe(0);

    const second = await serve(["--db", db]);
    try {
      expect(second.port).toBe(first.port);
      expect(second.token).toBe(first.token);
      expect((await fetch(`http://127.0.0.1:${second.port}/api/getInfo`, { method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${first.token}` }, body: "{}" })).status).toBe(200);
    } finally {
      await second.stop();
    }

    const fresh = await serve(["--db", db, "--new-token"]);
    await fresh.stop();
    expect(fresh.token).not.toBe(first.token);
  }, 60_000);

  it("takes --token and SPADE_TOKEN, and refuses a too-short token", async () => {
    const db = join(dir, "tokens.sqlite");
    const byFlag = await serve(["--db", db, "--token", "flag-token-0123456789"]);
    await byFlag.stop();
    expect(byFlag.token).toBe("flag-token-0123456789");
    const byEnv = await serve(["--db", db], { SPADE_TOKEN: "env-token-0123456789" });
    await byEnv.stop();
    expect(byEnv.token).toBe("env-token-0123456789");
    expect(byEnv.port).toBe(byFlag.port);
    const short = await serve(["--db", db, "--token", "short"]);
    expect(await short.exited).toBe(2);
    expect(short.stderr()).toContain("--token must be 16 to 256 characters");
  }, 60_000);

  it("says which option to use when the port is taken", async () => {
    const held = await occupyPort();
    try {
      const taken = await serve(["--db", join(dir, "taken.sqlite"), "--port", String(held.port)]);
      expect(await taken.exited).toBe(2);
      expect(taken.stderr()).toContain(`port ${held.port} on 127.0.0.1 is already in use`);
      expect(taken.stderr()).toContain("--port <n>");
    } finally {
      await held.release();
    }
  }, 60_000);
});
