// The loopback server in-process: token, origin and host checks, the API envelope, events over /ws.
import { request as httpRequest } from "node:http";
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { Workbench } from "../../main/api/Workbench.js";
import { startServer, type RunningServer } from "../../main/server/startServer.js";
import { buildUiFixture, type UiFixture } from "../e2e/support/fixture.js";

let dir: string;
let fixture: UiFixture;
let workbench: Workbench;
let server: RunningServer;

async function call(method: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`http://127.0.0.1:${server.port}/api/${method}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${server.token}`, ...headers },
    body: JSON.stringify(body),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, checked by the assertions
  return { status: response.status, body: (await response.json()) as { ok: boolean; result?: any; error?: { name: string; message: string } } };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-server-"));
  fixture = buildUiFixture(join(dir, "w.sqlite"), { extraEnvironments: 250 });
  mkdirSync(join(dir, "renderer"));
  writeFileSync(join(dir, "renderer", "index.html"), "<!doctype html><title>t</title>");
  writeFileSync(join(dir, "renderer", "app.js"), "1;");
  writeFileSync(join(dir, "secret.txt"), "host file");
  symlinkSync(join(dir, "renderer", "index.html"), join(dir, "renderer", "start.js"));
  symlinkSync(join(dir, "secret.txt"), join(dir, "renderer", "leak.txt"));
  workbench = Workbench.open({ dbPath: join(dir, "w.sqlite"), runtime: null, runControl: null });
  return startServer({ workbench, rendererDir: join(dir, "renderer") }).then((s) => {
    server = s;
  });
});

afterAll(async () => {
  await server.close();
  await workbench.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("loopback server", () => {
  it("prints a loopback URL carrying a fresh token", () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${server.token}`);
    expect(server.token.length).toBeGreaterThanOrEqual(40);
  });

  it("serves the page only with the token, with a strict CSP", async () => {
    expect((await fetch(`http://127.0.0.1:${server.port}/`)).status).toBe(401);
    const page = await fetch(server.url);
    expect(page.status).toBe(200);
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toMatch(/https?:/);
    expect((await fetch(`http://127.0.0.1:${server.port}/../../etc/passwd`)).status).toBe(404);
  });

  it("decides on the decoded, resolved path: no spelling or link of the page passes without the token", async () => {
    const base = `http://127.0.0.1:${server.port}`;
    for (const spelling of ["/%69ndex.html", "/%2Findex.html", "/./index.html", "/x/../index.html", "/INDEX.html/../index.html", "/index%2ehtml", "/start.js"]) {
      const response = await fetch(base + spelling);
      expect(response.status, spelling).not.toBe(200);
      expect(await response.text(), spelling).not.toContain("<title>t</title>");
    }
    expect((await fetch(`${base}/%69ndex.html?token=${server.token}`)).status).toBe(200);
    expect((await fetch(`${base}/app.js`)).status).toBe(200);
    expect((await fetch(`${base}/leak.txt`)).status).toBe(404);
  });

  it("refuses API calls without the right token (401), from foreign origins or hosts (403)", async () => {
    expect((await call("listRuns", {}, { Authorization: "Bearer nope" })).status).toBe(401);
    expect((await call("listRuns", {}, { Origin: "http://localhost:1" })).status).toBe(403);
    expect((await call("listRuns", {}, { Origin: `http://127.0.0.1:${server.port}` })).status).toBe(200);
    const rebound = await new Promise<number>((resolve, reject) => {
      const request = httpRequest({ host: "127.0.0.1", port: server.port, path: "/api/listRuns", method: "POST", headers: { Host: "evil.example", Authorization: `Bearer ${server.token}`, "Content-Type": "application/json" } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on("error", reject);
      request.end("{}");
    });
    expect(rebound).toBe(403);
  });

  it("answers with typed errors: 400 bad input, 404 missing rows, 503 missing engine parts", async () => {
    expect(await call("getEnvironment", { envId: 999999 })).toMatchObject({ status: 404, body: { ok: false, error: { name: "NotFoundError" } } });
    expect(await call("listEnvironments", { limit: -1 })).toMatchObject({ status: 400, body: { error: { name: "ApiInputError" } } });
    expect(await call("validateCode", { code: "x = 1" })).toMatchObject({ status: 503, body: { error: { name: "UnavailableError" } } });
    expect((await call("nope", {})).status).toBe(400);
  });

  it("pages and filters environments", async () => {
    const page = await call("listEnvironments", { runId: fixture.runIds[0], offset: 200, limit: 100 });
    expect(page.body.result.total).toBe(252);
    expect(page.body.result.items).toHaveLength(52);
    const invalid = await call("listEnvironments", { valid: false, text: "Broken" });
    expect(invalid.body.result.items.map((e: { id: number }) => e.id)).toEqual([fixture.invalidEnvId]);
    const top = await call("listEnvironments", { order: "regret", limit: 1 });
    expect(top.body.result.items[0].id).toBe(fixture.envId);
  });

  it("returns an episode with its counterpart and its turns in pages", async () => {
    const episode = await call("getEpisode", { episodeId: fixture.episodeId });
    expect(episode.body.result).toMatchObject({ hinted: false, counterpartId: fixture.hintedEpisodeId, turns: 5, className: "GuessNumberEnv" });
    const turns = await call("getTurns", { episodeId: fixture.episodeId, offset: 3, limit: 10 });
    expect(turns.body.result.total).toBe(5);
    expect(turns.body.result.turns.map((t: { idx: number }) => t.idx)).toEqual([3, 4]);
  });

  it("curates memory: ban takes it out for good, pin needs a non-banned entry", async () => {
    const banned = await call("setMemoryFlags", { envId: fixture.envId, banned: true });
    expect(banned.body.result).toEqual({ pinned: false, banned: true, inMemory: false });
    const back = await call("setMemoryFlags", { envId: fixture.envId, banned: false, inMemory: true, pinned: true });
    expect(back.body.result).toEqual({ pinned: true, banned: false, inMemory: true });
    const invalid = await call("setMemoryFlags", { envId: fixture.invalidEnvId, inMemory: true });
    expect(invalid.status).toBe(404);
  });

  it("pushes events to WebSocket clients holding the token and refuses others", async () => {
    const refused = await new Promise<number>((resolve) => {
      const socket = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=wrong`);
      socket.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      socket.on("error", () => undefined);
    });
    expect(refused).toBe(401);
    const socket = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`);
    await new Promise((resolve) => socket.once("open", resolve));
    const received = new Promise<unknown>((resolve) => socket.once("message", (data) => resolve(JSON.parse(String(data)))));
    workbench.emit({ type: "runStatus", runId: 1, status: "paused", error: null });
    expect(await received).toEqual({ type: "runStatus", runId: 1, status: "paused", error: null });
    socket.close();
  });
});
