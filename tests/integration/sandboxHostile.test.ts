import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { getPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resourcePath } from "../../main/paths.js";
import { capText, TEXT_CAPS } from "../../main/sandbox/capText.js";
import { playEnvironment } from "../../main/sandbox/playEnvironment.js";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { validateEnvironment } from "../../main/validator/validateEnvironment.js";
import { expectOpensInMode, inRecycledProcess, SANDBOX_PROCESS_MODES } from "../support/sandboxProcessModes.js";
import { createTestPool } from "../support/sandboxTestPool.js";

// Environment code written as an attacker would, run through one shared pool (as `spade envs
// import`, `spade run` and `spade serve` use it). Each attack reports what it managed inside the
// sandbox; the assertions check the host (markers, a Unix socket and a TCP listener that must stay
// silent, this process's priority), the engine (alive, answering) and a victim environment whose
// verdict and plays must not change.

interface Host {
  secret: string;
  marker: string;
  jsMarker: string;
  socket: string;
  port: number;
  pid: number;
}

const PRELUDE = (host: Host) => `
import asyncio, json, os, socket, subprocess, sys
HOST = ${JSON.stringify(host)}

def attempt(results, name, action):
    try:
        results[name] = "ok: " + repr(action())[:200]
    except BaseException as error:
        results[name] = "blocked: " + type(error).__name__ + ": " + str(error)[:200]

def is_js(value):
    return type(value).__module__ in ("pyodide.ffi", "_pyodide_core") and not isinstance(value, type)

def escalate(proxy):
    """What an attacker does with a JavaScript object: reach code evaluation, then the process."""
    process = proxy.constructor.constructor("return globalThis.process")()
    process.getBuiltinModule("fs").writeFileSync(HOST["jsMarker"], "escaped")
    return "escaped"
`;

/** Reaching JavaScript from Python: the object graph, frames, class globals, the builtin-module loader. */
const REACH_JAVASCRIPT = `
class ReachEnv:
    def reset(self, seed=None):
        results = {}
        attempt(results, "gc_objects", lambda: __import__("gc").get_objects())
        attempt(results, "gc_referents", lambda: __import__("gc").get_referents(sys.modules))
        attempt(results, "frame", lambda: sys._getframe(1).f_globals)
        def traceback_frame():
            try:
                1 / 0
            except ZeroDivisionError as error:
                return error.__traceback__.tb_frame.f_back
        attempt(results, "traceback_frame", traceback_frame)
        attempt(results, "settrace", lambda: sys.settrace(lambda *args: None))
        attempt(results, "import_js", lambda: __import__("js"))
        attempt(results, "import_pyodide", lambda: __import__("pyodide.ffi"))
        attempt(results, "import_core", lambda: __import__("_pyodide_core"))
        def remove_gate():
            sys.meta_path.clear()
            return __import__("pyodide_js")
        attempt(results, "import_after_clearing_meta_path", remove_gate)
        found = {}
        seen = set()
        def walk(cls):
            for sub in type.__subclasses__(cls):
                if id(sub) in seen:
                    continue
                seen.add(id(sub))
                for value in list(vars(sub).values()):
                    for holder in (value, getattr(value, "__func__", None)):
                        g = getattr(holder, "__globals__", None)
                        if isinstance(g, dict):
                            found.update((id(v), v) for v in list(g.values()) if is_js(v))
                        for cell in getattr(holder, "__closure__", None) or ():
                            try:
                                if is_js(cell.cell_contents):
                                    found[id(cell.cell_contents)] = cell.cell_contents
                            except ValueError:
                                pass
                walk(sub)
        walk(object)
        try:
            import importlib._bootstrap as bootstrap
            core = bootstrap._imp.create_builtin(bootstrap.ModuleSpec("_pyodide_core", None))
            for name in ("to_js", "create_proxy"):
                maker = getattr(core, name, None)
                if maker:
                    attempt(results, "make_" + name, lambda: found.setdefault(-len(found) - 1, maker([1]) if name == "to_js" else maker(print)))
        except BaseException as error:
            results["create_builtin"] = "blocked: " + type(error).__name__
        results["javascript_objects"] = len(found)
        # The harness's own functions would lead to its handler through their globals.
        harness = [name for name in ("connect", "prepare", "handle") if name in getattr(os.system, "__globals__", {})]
        results["harness_globals"] = ",".join(harness)
        for index, proxy in enumerate(list(found.values())[:40]):
            attempt(results, f"escalate_{index}", lambda: escalate(proxy))
        return json.dumps(results), {}
    def step(self, action):
        return "x", 0.0, True, False, {}
    def solution(self):
        return "x"
`;

/** The host from Python: files, processes, sockets (TCP and Unix), priorities, secrets. */
const REACH_HOST = `
class HostEnv:
    def reset(self, seed=None):
        results = {}
        attempt(results, "read_secret", lambda: open(HOST["secret"]).read())
        attempt(results, "write_marker", lambda: open(HOST["marker"], "w").write("written"))
        attempt(results, "os_system", lambda: os.system("touch " + HOST["marker"]))
        attempt(results, "subprocess", lambda: subprocess.run(["touch", HOST["marker"]]))
        attempt(results, "tcp", lambda: socket.create_connection(("127.0.0.1", HOST["port"]), timeout=2).sendall(b"hello"))
        def unix():
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(HOST["socket"])
            return s.sendall(b"hello")
        attempt(results, "unix", unix)
        attempt(results, "setpriority", lambda: os.setpriority(os.PRIO_PROCESS, HOST["pid"], 19))
        attempt(results, "kill", lambda: os.kill(HOST["pid"], 0))
        attempt(results, "environment", lambda: dict(os.environ))
        return json.dumps(results), {}
    def step(self, action):
        return "x", 0.0, True, False, {}
    def solution(self):
        return "x"
`;

/** Work scheduled to run after the reply, to hang the child or forge the next answer. */
const LEFT_BEHIND = `
class LaterEnv:
    def reset(self, seed=None):
        loop = asyncio.get_event_loop()
        def hang():
            while True:
                pass
        loop.call_soon(hang)
        loop.call_later(0.01, hang)
        asyncio.ensure_future(asyncio.sleep(0))
        return "scheduled", {}
    def step(self, action):
        return "still answering", 0.0, False, False, {}
    def solution(self):
        return "x"
`;

/** asyncio as environments use it: asyncio.run, sleeps, timers, tasks, and a wait for nothing. */
const ASYNCIO_GAME = `
import asyncio, json, time
class AsyncEnv:
    def reset(self, seed=None):
        order = []
        async def main():
            loop = asyncio.get_running_loop()
            start = loop.time()
            loop.call_soon(order.append, "soon")
            loop.call_later(10, order.append, "later")
            async def task():
                await asyncio.sleep(15)
                order.append("task")
            running = asyncio.ensure_future(task())
            await asyncio.sleep(30)
            await running
            order.append("slept")
            return loop.time() - start
        began = time.perf_counter()
        elapsed = asyncio.run(main())
        try:
            loop = asyncio.new_event_loop()
            loop.run_until_complete(loop.create_future())
            forever = "returned"
        except RuntimeError as error:
            forever = "RuntimeError: " + str(error)
        return json.dumps({"order": order, "virtualSeconds": elapsed, "wallSecondsUnder": time.perf_counter() - began < 60, "forever": forever}), {}
    def step(self, action):
        return "x", 0.0, True, False, {}
    def solution(self):
        return "x"
`;

/** The harness's own limits and encoder, from inside. */
const TAMPER_HARNESS = `
import json.encoder
class TamperEnv:
    def reset(self, seed=None):
        json.encoder.encode_basestring_ascii = lambda text: '"forged"'
        json.encoder.c_make_encoder = None
        sys.stdout.write("p" * 10_000_000)
        return "o" * 8_000_000, {"big": "i" * 10}
    def step(self, action):
        return "x", float("nan"), False, False, {}
    def solution(self):
        return "x"
`;

const hostileFixture = (name: string) => readFileSync(new URL(`../fixtures/environments/hostile/${name}.py`, import.meta.url), "utf8");

// Against never-used processes, and against processes that ran another environment and were recycled.
describe.each(SANDBOX_PROCESS_MODES)("hostile environments against one shared pool ($mode)", ({ options, recycled }) => {
  let pool: SandboxPool;
  const opens = { all: 0, recycled: 0 };
  let dir: string;
  let tcp: Server;
  let unix: Server;
  let contacts = 0;
  let host: Host;
  const victim = readFileSync(resourcePath("environments", "code_breaker.py"), "utf8");
  const actions = ["\\boxed{0123}", "\\boxed{4567}", "\\boxed{8901}"];
  let victimBefore: { verdict: unknown; play: unknown };

  async function victimNow() {
    const report = await validateEnvironment(pool, victim);
    const { durationMs: _duration, ...verdict } = report;
    const play = await playEnvironment(pool, victim, { seed: 5, actions });
    return { verdict, play };
  }

  async function firstObservation(code: string, callTimeoutMs?: number): Promise<string> {
    const session = await pool.open(code, callTimeoutMs === undefined ? {} : { callTimeoutMs });
    opens.all++;
    if (inRecycledProcess(session)) opens.recycled++;
    try {
      return (await session.reset(1)).observation;
    } finally {
      await session.close();
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "spade-hostile-"));
    const listen = (server: Server, ...args: unknown[]) => new Promise<void>((resolve) => (server.listen as (...a: unknown[]) => void)(...args, resolve));
    tcp = createServer((socket) => (contacts++, socket.destroy()));
    unix = createServer((socket) => (contacts++, socket.destroy()));
    await listen(tcp, 0, "127.0.0.1");
    await listen(unix, join(dir, "host.sock"));
    host = { secret: join(dir, "secret.txt"), marker: join(dir, "marker.txt"), jsMarker: join(dir, "escaped.txt"), socket: join(dir, "host.sock"), port: (tcp.address() as { port: number }).port, pid: process.pid };
    writeFileSync(host.secret, "TOP-SECRET-4711");
    process.env.SPADE_HOSTILE_SECRET = "env-secret-0815";
    pool = await createTestPool({ size: 2, stepTimeoutMs: 5_000, callTimeoutMs: 20_000, ...options });
    victimBefore = await victimNow();
  });

  afterAll(async () => {
    await pool?.dispose();
    tcp?.close();
    unix?.close();
    delete process.env.SPADE_HOSTILE_SECRET;
    rmSync(dir, { recursive: true, force: true });
  });

  it("finds no JavaScript to run from Python, by any route", async () => {
    const results = JSON.parse(await firstObservation(PRELUDE(host) + REACH_JAVASCRIPT)) as Record<string, string | number>;
    for (const name of ["gc_objects", "gc_referents", "frame", "traceback_frame", "settrace", "import_js", "import_pyodide", "import_core", "import_after_clearing_meta_path"]) {
      expect(results[name], name).toMatch(/^blocked/);
    }
    expect(results.create_builtin).toMatch(/^blocked/);
    expect(results.harness_globals).toBe("");
    for (const [name, outcome] of Object.entries(results)) if (name.startsWith("escalate_")) expect(outcome, name).toMatch(/^blocked/);
    expect(existsSync(host.jsMarker)).toBe(false);
  });

  it("reaches no JavaScript object, bridge module, bridge builtin or bridge globals from anything an environment can walk", async () => {
    const { visited, found } = JSON.parse(await firstObservation(hostileFixture("reach_walk"), 200_000)) as { visited: number; found: Record<string, string> };
    expect(visited).toBeGreaterThan(20_000);
    expect(found).toEqual({});
  }, 240_000);

  it("closes the roads to JavaScript that need no gc or frames: event loop, __main__, patched names, re-imports, FFI classes", async () => {
    const results = JSON.parse(await firstObservation(hostileFixture("reach_javascript"))) as Record<string, string | number>;
    expect(results.event_loop).toBe("nothing: <class 'spade_determinism.SandboxEventLoop'>");
    expect(results.bridge_classes).toBeGreaterThan(0);
    for (const [name, outcome] of Object.entries(results)) {
      if (name !== "bridge_classes") expect(outcome, name).toMatch(/^(blocked|nothing): /);
    }
  }, 120_000);

  it("runs asyncio on a pure-Python loop: timers on the play's virtual clock, the same result every play, no silent hang", async () => {
    const plays = [];
    for (let play = 0; play < 2; play++) plays.push(await firstObservation(ASYNCIO_GAME));
    expect(plays[0]).toBe(plays[1]);
    const result = JSON.parse(plays[0] ?? "{}") as Record<string, unknown>;
    expect(result.order).toEqual(["soon", "later", "task", "slept"]);
    expect(result.virtualSeconds).toBeGreaterThanOrEqual(30);
    expect(result.wallSecondsUnder).toBe(true);
    expect(result.forever).toMatch(/^RuntimeError: the asyncio event loop would wait forever/);
  }, 120_000);

  it("leaves host files, processes, sockets and this process's priority alone", async () => {
    const priority = getPriority(process.pid);
    const observation = await firstObservation(PRELUDE(host) + REACH_HOST);
    const results = JSON.parse(observation) as Record<string, string>;
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const name of ["read_secret", "write_marker", "tcp", "unix", "setpriority", "subprocess"]) expect(results[name], name).toMatch(/^blocked/);
    expect(results.os_system).not.toBe("ok: 0");
    expect(existsSync(host.marker)).toBe(false);
    expect(observation).not.toContain("TOP-SECRET-4711");
    expect(observation).not.toContain("env-secret-0815");
    expect(contacts).toBe(0);
    expect(getPriority(process.pid)).toBe(priority);
  });

  it("runs nothing left scheduled after a reply: the same sandbox answers the next call", async () => {
    const session = await pool.open(PRELUDE(host) + LEFT_BEHIND);
    try {
      expect((await session.reset(1)).observation).toBe("scheduled");
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await session.step("a")).observation).toBe("still answering");
    } finally {
      await session.close();
    }
  });

  it("cannot raise the caps or forge the harness's answers from inside", async () => {
    const session = await pool.open(PRELUDE(host) + TAMPER_HARNESS);
    try {
      const first = await session.reset(1).catch((error: Error) => error);
      if (!(first instanceof Error)) {
        expect(first.observation.length).toBeLessThan(70_000);
        expect(first.observation).not.toContain("forged");
      }
      const step = await session.step("a").catch((error: Error) => error);
      expect(step).toBeInstanceOf(Error);
      expect(String((step as Error).message)).not.toContain("null");
    } finally {
      await session.close();
    }
  });

  it("keeps the engine answering and the victim's verdict and plays unchanged", async () => {
    const after = await victimNow();
    expect(after).toEqual(victimBefore);
    expect((victimBefore.verdict as { valid: boolean }).valid).toBe(true);
    expect(pool.stats().live).toBeGreaterThan(0);
  });

  it(recycled ? "ran its environments in processes that served another environment and were recycled" : "ran its environments in never-used processes only", () => {
    expectOpensInMode(pool, opens, recycled);
  });
});

describe("oversized texts against a pool with small frames", () => {
  let pool: SandboxPool;
  beforeAll(async () => {
    // Frames of this pool are capped near 110 KB: a 2 MB text crossing the pipe would end the session.
    pool = await createTestPool({ size: 1, maxObservationChars: 1000, maxPrintChars: 1000 });
  });
  afterAll(async () => {
    await pool?.dispose();
  });

  it("cuts a 2 MB hint, a 1 MB solution and a huge class name in the sandbox, before they cross the pipe", async () => {
    const name = `${"Long".repeat(100)}Env`;
    const session = await pool.open(`
class ${name}:
    def reset(self, seed=None):
        return "start", {}
    def step(self, action):
        raise ValueError("m" * 3_000_000)
    def hint(self):
        return "h" * 2_000_000
    def solution(self):
        return "s" * 1_000_000
`);
    try {
      expect(session.className).toBe(capText(name, TEXT_CAPS.className, "class name"));
      expect(await session.hint()).toBe(capText("h".repeat(2_000_000), TEXT_CAPS.hint, "hint"));
      expect(await session.solution()).toBe(capText("s".repeat(1_000_000), TEXT_CAPS.solution, "solution"));
      await session.reset(1);
      const failure = await session.step("a").catch((error: Error) => error);
      expect((failure as { exception?: string }).exception).toBe(capText(`ValueError: ${"m".repeat(3_000_000)}`, TEXT_CAPS.exception, "exception message"));
    } finally {
      await session.close();
    }
  }, 120_000);
});
