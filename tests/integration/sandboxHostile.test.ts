import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { createTestPool } from "../support/sandboxTestPool.js";

// An environment that tries every way out it can think of during reset() and reports what
// happened. The assertions check the host: no file written, no secret read, no process started,
// no connection made, the engine still alive.
function hostileEnv(paths: { secret: string; marker: string; spawnMarker: string; jsMarker: string }, port: number): string {
  return `
import asyncio, gc, json, os, socket, subprocess, sys

SECRET, MARKER, SPAWN_MARKER, JS_MARKER, PORT = ${JSON.stringify(paths.secret)}, ${JSON.stringify(paths.marker)}, ${JSON.stringify(paths.spawnMarker)}, ${JSON.stringify(paths.jsMarker)}, ${port}

def attempt(results, name, action):
    try:
        results[name] = "ok: " + repr(action())[:300]
    except BaseException as error:
        results[name] = "blocked: " + type(error).__name__ + ": " + str(error)[:300]

def javascript_objects():
    """Every JavaScript proxy reachable from Python: through the garbage collector and through
    the globals of every function of every class (Pyodide's own modules keep some)."""
    is_js = lambda value: type(value).__module__ == "pyodide.ffi" and not isinstance(value, type) and type(value).__name__ != "JsNull"
    found = {}
    for value in gc.get_objects():
        if is_js(value):
            found[id(value)] = value
    seen = set()
    def walk(cls):
        for sub in type.__subclasses__(cls):
            if id(sub) in seen:
                continue
            seen.add(id(sub))
            for value in list(vars(sub).values()):
                for g in (getattr(value, "__globals__", None), getattr(getattr(value, "__func__", None), "__globals__", None)):
                    if isinstance(g, dict):
                        found.update((id(v), v) for v in list(g.values()) if is_js(v))
            walk(sub)
    walk(object)
    return list(found.values())

def escalate(proxy):
    """What an attacker does with a JavaScript object: reach the Function constructor, then the
    process, then files, processes and sockets."""
    run = proxy.constructor.constructor
    process = run("return globalThis.process")()
    fs = process.getBuiltinModule("fs")
    fs.writeFileSync(JS_MARKER, "escaped")
    return "escaped"

class HostileEnv:
    def __init__(self):
        self.reset()

    def reset(self, seed=None):
        results = {}
        attempt(results, "read_secret", lambda: open(SECRET).read())
        attempt(results, "write_marker", lambda: open(MARKER, "w").write("written"))
        attempt(results, "os_system", lambda: os.system("touch " + SPAWN_MARKER))
        attempt(results, "subprocess", lambda: subprocess.run(["touch", SPAWN_MARKER]))
        attempt(results, "socket", lambda: socket.create_connection(("127.0.0.1", PORT), timeout=2).sendall(b"hello"))
        attempt(results, "import_js", lambda: __import__("js").process)
        attempt(results, "import_pyodide_js", lambda: __import__("pyodide_js"))
        attempt(results, "import_pyodide_ffi", lambda: __import__("pyodide.ffi"))
        attempt(results, "import_ctypes", lambda: __import__("ctypes"))
        attempt(results, "sys_modules_js", lambda: [name for name in sys.modules if name in ("js", "pyodide_js", "pyodide")])
        attempt(results, "environment_secret", lambda: os.environ.get("SPADE_HOSTILE_SECRET"))
        proxies = javascript_objects() if seed != 0 else []
        results["javascript_objects_found"] = len(proxies)
        for index, proxy in enumerate(proxies[:40]):
            attempt(results, f"escalate_{index}", lambda: escalate(proxy))
            for name in ("mountNodeFS", "loadPackage", "runPythonAsync", "_api"):
                attempt(results, f"api_{index}_{name}", lambda: getattr(proxy, name))
            attempt(results, f"mount_{index}", lambda: proxy.mountNodeFS("/host", "/") or open("/host" + SECRET).read())
            attempt(results, f"data_url_{index}", lambda: proxy._api.loadScript("data:text/javascript,globalThis.process.getBuiltinModule('fs').writeFileSync(" + json.dumps(JS_MARKER) + ", 'x')"))
        return json.dumps(results), {}

    def step(self, action):
        return "nothing", 0.0, True, False, {}

    def solution(self):
        return "none"
`;
}

describe("a hostile environment", () => {
  let pool: SandboxPool;
  let dir: string;
  let server: Server;
  let connections = 0;
  let paths: { secret: string; marker: string; spawnMarker: string; jsMarker: string };
  let port: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "spade-hostile-"));
    paths = { secret: join(dir, "secret.txt"), marker: join(dir, "marker.txt"), spawnMarker: join(dir, "spawned.txt"), jsMarker: join(dir, "escaped.txt") };
    writeFileSync(paths.secret, "TOP-SECRET-4711");
    process.env.SPADE_HOSTILE_SECRET = "env-secret-0815";
    server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
    pool = await createTestPool();
  });

  afterAll(async () => {
    await pool?.dispose();
    server?.close();
    delete process.env.SPADE_HOSTILE_SECRET;
    rmSync(dir, { recursive: true, force: true });
  });

  it("cannot touch host files, processes, the network or the host's JavaScript", async () => {
    const session = await pool.open(hostileEnv(paths, port));
    const { observation } = await session.reset(1);
    await session.close();
    await new Promise((resolve) => setTimeout(resolve, 500)); // anything asynchronous an escape queued
    const results = JSON.parse(observation) as Record<string, string | number>;

    // The side effects did not happen on the host.
    expect(existsSync(paths.marker)).toBe(false);
    expect(existsSync(paths.spawnMarker)).toBe(false);
    expect(existsSync(paths.jsMarker)).toBe(false);
    expect(connections).toBe(0);
    expect(observation).not.toContain("TOP-SECRET-4711");
    expect(observation).not.toContain("env-secret-0815");

    // And each attempt failed inside the sandbox.
    expect(results.read_secret).toMatch(/^blocked: FileNotFoundError/);
    expect(results.import_js).toMatch(/^blocked: ModuleNotFoundError: import of 'js' is not allowed/);
    expect(results.import_pyodide_js).toMatch(/^blocked: ModuleNotFoundError/);
    expect(results.import_pyodide_ffi).toMatch(/^blocked: ModuleNotFoundError/);
    expect(results.import_ctypes).toMatch(/^blocked: ModuleNotFoundError/);
    expect(results.sys_modules_js).toBe("ok: []");
    expect(results.socket).toMatch(/^blocked/);
    expect(results.subprocess).toMatch(/^blocked/);
    expect(results.os_system).not.toBe("ok: 0");
    // Pyodide's own modules keep JavaScript objects that Python code can find; none leads out.
    expect(results.javascript_objects_found).toBeGreaterThan(0);
    const escalations = Object.entries(results).filter(([name]) => name.startsWith("escalate_"));
    expect(escalations.length).toBeGreaterThan(0);
    for (const [, outcome] of escalations) expect(outcome).toMatch(/^blocked/);
  });

  it("leaves the sandbox usable for the next environment", async () => {
    const session = await pool.open("class FineEnv:\n    def reset(self, seed=None):\n        return 'fine', {}\n");
    expect(await session.reset(1)).toEqual({ observation: "fine", info: {} });
    await session.close();
  });
});
