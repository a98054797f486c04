import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BubblewrapConfinement } from "../../main/sandbox/confinement/bubblewrapConfinement.js";
import { buildSandboxLaunch, sandboxHostScript } from "../../main/sandbox/sandboxLaunch.js";

// Each isolation layer of the sandbox child, tested on its own with a probe that plays escaped
// code (tests/fixtures/sandbox/escapeProbe.mjs), then all of them together.

const probe = fileURLToPath(new URL("../fixtures/sandbox/escapeProbe.mjs", import.meta.url));
const childDir = dirname(sandboxHostScript());
const gate = join(childDir, "moduleGate.mjs");
const harden = join(childDir, "hardenRealm.mjs");
const permission = ["--experimental-permission", `--allow-fs-read=${dirname(probe)}`, `--allow-fs-read=${childDir}`, "--allow-worker", "--disable-warning=ExperimentalWarning", "--disable-warning=SecurityWarning"];

let dir: string;
let server: Server;
let connections = 0;
let config: { secret: string; marker: string; spawnMarker: string; port: number };

function runProbe(prefix: string[], nodeFlags: string[], layers: { gate?: boolean; harden?: boolean } = {}): Promise<Record<string, string>> {
  const argument = JSON.stringify({ ...config, ...(layers.gate ? { gate } : {}), ...(layers.harden ? { harden } : {}) });
  const [command, ...args] = [...prefix, process.execPath, ...nodeFlags, probe, argument];
  return new Promise((resolve, reject) => {
    const child = spawn(command as string, args, { env: {}, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (err += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("exit", () => {
      clearTimeout(timer);
      const line = out.trim().split("\n").at(-1) ?? "";
      try {
        resolve(JSON.parse(line) as Record<string, string>);
      } catch {
        reject(new Error(`the probe printed no result: ${out} ${err}`));
      }
    });
  });
}

describe("sandbox isolation layers", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "spade-layers-"));
    config = { secret: join(dir, "secret.txt"), marker: join(dir, "marker.txt"), spawnMarker: join(dir, "spawned.txt"), port: 0 };
    writeFileSync(config.secret, "TOP-SECRET-1234");
    server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    config.port = (server.address() as { port: number }).port;
  });
  beforeEach(() => {
    // Probes of a single layer may write these (that layer does not cover files).
    connections = 0;
    rmSync(config.marker, { force: true });
    rmSync(config.spawnMarker, { force: true });
  });
  afterAll(() => {
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the permission model stops file access and child processes", async () => {
    const results = await runProbe([], permission);
    expect(results.read_secret).toMatch(/^blocked: ERR_ACCESS_DENIED/);
    expect(results.write_marker).toMatch(/^blocked: ERR_ACCESS_DENIED/);
    expect(results.spawn).toMatch(/^blocked: ERR_ACCESS_DENIED/);
    expect(existsSync(config.marker)).toBe(false);
    expect(existsSync(config.spawnMarker)).toBe(false);
  });

  it("the module gate refuses network modules and code URLs", async () => {
    const results = await runProbe([], [], { gate: true });
    expect(results.import_net_connect).toBe('blocked: Error: sandbox: import of "node:net" is not allowed');
    expect(results.import_data_url).toBe('blocked: Error: sandbox: import of a "data:" URL is not allowed');
    // Only the socket module the probe loaded before the gate existed got through (the host
    // loads none); the network namespace covers that case.
    expect(connections).toBe(results.preloaded_net_connect === "ok: connected" ? 1 : 0);
  });

  it.skipIf(!existsSync("/usr/bin/bwrap"))("bubblewrap's network namespace leaves no route to the host, whatever module is loaded", async () => {
    const wrapped = new BubblewrapConfinement("/usr/bin/bwrap").wrap({ executable: process.execPath, args: [], readOnlyPaths: [dirname(probe), dirname(config.secret)], env: {} });
    const at = wrapped.args.indexOf("--seccomp");
    const prefix = [wrapped.command, ...wrapped.args.slice(0, at), "--"];
    const results = await runProbe(prefix, []);
    expect(results.import_net_connect).toMatch(/^blocked/);
    expect(results.preloaded_net_connect).toMatch(/^blocked/);
    expect(connections).toBe(0);
  });

  it("the realm hardening removes the Function constructor, process powers, fetch and prototype pollution", async () => {
    const results = await runProbe([], [], { harden: true });
    expect(results.function_constructor).toMatch(/^blocked: TypeError/);
    expect(results.async_function_constructor).toMatch(/^blocked: TypeError/);
    expect(results.get_builtin_module).toBe("blocked: Error: not available in the SPADE sandbox");
    expect(results.kill_parent).toBe("blocked: Error: not available in the SPADE sandbox");
    expect(results.fetch).toBe("ok: undefined");
    expect(results.pollute_object_prototype).toMatch(/^blocked: TypeError/);
  });

  it("the child starts with an empty environment", async () => {
    process.env.SPADE_LAYER_SECRET = "do-not-inherit";
    try {
      const results = await runProbe([], []);
      expect(results.env).toBe("ok: ");
    } finally {
      delete process.env.SPADE_LAYER_SECRET;
    }
  });

  it("all layers together, as the sandbox launches its children, stop every attempt", async () => {
    const launch = buildSandboxLaunch();
    const results = await runProbe([], permission, { gate: true, harden: true });
    for (const name of ["read_secret", "write_marker", "spawn", "import_net_connect", "import_data_url", "function_constructor", "get_builtin_module", "kill_parent", "pollute_object_prototype"]) {
      expect(results[name], name).toMatch(/^blocked/);
    }
    expect(existsSync(config.marker)).toBe(false);
    expect(existsSync(config.spawnMarker)).toBe(false);
    expect(launch.isolation).toContain("Node permission model");
    expect(launch.args).toContain("--disallow-code-generation-from-strings");
  });
});
