import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resourcePath } from "../../main/paths.js";
import { TEXT_CAPS } from "../../main/sandbox/capText.js";
import type { EnvSession } from "../../main/sandbox/EnvSession.js";
import { buildSandboxLaunch } from "../../main/sandbox/sandboxLaunch.js";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { SandboxProcess } from "../../main/sandbox/SandboxProcess.js";
import { createTestPool } from "../support/sandboxTestPool.js";

// Processes put back to their pristine state serve another game (`recycleProcesses`): a recycled
// process must answer exactly as a never-used one, whatever the game before it did.

/** The sandbox process a session runs in. */
function processOf(session: EnvSession): SandboxProcess {
  return (session as unknown as { process: SandboxProcess }).process;
}

/** Waits until the pool's counter reaches `count` (recycles run in the background). */
async function until(pool: SandboxPool, check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > 30_000) throw new Error(`timed out waiting (stats ${JSON.stringify(pool.stats())})`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// What a game sees of the interpreter and the realm: module state, builtins, modules, the path,
// the environment, the collector, files, the virtual clock and every random source.
const VICTIM = `
import builtins, gc, json, os, random, sys, time
class VictimEnv:
    def __init__(self):
        self.turn = 0
    def view(self):
        return json.dumps({
            "planted": hasattr(builtins, "SPADE_PLANTED"),
            "len": len([1, 2, 3]),
            "dumps": json.dumps([1]),
            "modules": sorted(name for name in sys.modules if "hostile" in name or name == "json_evil"),
            "collections": type(sys.modules.get("collections")).__name__,
            "path": [entry for entry in sys.path if "evil" in entry],
            "env": sorted(key for key in os.environ if key.startswith("SPADE")),
            "gc": [gc.isenabled(), gc.get_threshold(), len(gc.garbage)],
            "files": os.path.exists("/tmp/hostile.txt") or os.path.exists("/home/pyodide/hostile.txt"),
            "time": time.time(),
            "monotonic": time.monotonic(),
            "random": random.random(),
            "urandom": os.urandom(8).hex(),
            "sysrandom": random.SystemRandom().random(),
            "id_mod": id(object()) % 4096,
            "recursion": sys.getrecursionlimit(),
            "umask": os.umask(0o022),
        }, sort_keys=True)
    def reset(self, seed=None):
        self.turn = 0
        return self.view(), {}
    def step(self, action):
        self.turn += 1
        return self.view(), float(self.turn), self.turn >= 3, False, {"turn": self.turn}
`;

// A first game that changes everything it can reach and leaves what it can behind: at module
// level (in the state its later plays start from) and again in every play.
const HOSTILE = `
import builtins, gc, json, os, random, sys, time, types
dumps = json.dumps
def tamper(everything):
    done = []
    def attempt(name, action):
        try:
            action()
            done.append(name)
        except BaseException:
            pass
    attempt("builtin", lambda: setattr(builtins, "SPADE_PLANTED", True))
    if everything:
        # What the harness relies on itself: changed in a play only (the harness refuses the next call otherwise).
        attempt("len", lambda: setattr(builtins, "len", lambda value: 42))
        attempt("dumps", lambda: setattr(json, "dumps", lambda *a, **k: "patched"))
    attempt("module", lambda: sys.modules.__setitem__("hostile_module", types.ModuleType("hostile_module")))
    attempt("collections", lambda: sys.modules.__setitem__("collections", types.ModuleType("collections")))
    attempt("path", lambda: sys.path.append("/evil"))
    attempt("env", lambda: os.environ.__setitem__("SPADE_HOSTILE", "1"))
    attempt("gc", lambda: (gc.disable(), gc.set_threshold(1, 1, 1), gc.garbage.append(object())))
    attempt("file", lambda: open("/tmp/hostile.txt", "w").write("left"))
    attempt("home file", lambda: open("/home/pyodide/hostile.txt", "w").write("left"))
    attempt("recursion", lambda: sys.setrecursionlimit(321))
    attempt("umask", lambda: os.umask(0o077))
    for _ in range(1000):
        time.time(); time.monotonic(); random.random(); os.urandom(16)
    return done
at_open = tamper(False)
left_behind = [object() for _ in range(1000)]
class HostileEnv:
    def reset(self, seed=None):
        return dumps([at_open, tamper(True)]), {}
    def step(self, action):
        return "", 0.0, True, False, {}
`;

const ACTIONS = ["a", "b", "c"];

/** A game's transcript: the open's printed output and every observation, reward and info of reset(seed) and the steps. */
async function transcript(session: EnvSession, seed: number): Promise<string> {
  const turns: unknown[] = [await session.reset(seed)];
  for (const action of ACTIONS) turns.push(await session.step(action));
  return JSON.stringify(turns);
}

/** Plays `code` once in `pool` and returns the process it ran in. */
async function playOnce(pool: SandboxPool, code: string): Promise<SandboxProcess> {
  const session = await pool.open(code);
  try {
    await session.reset(1);
    return processOf(session);
  } finally {
    await session.close();
  }
}

describe("recycled sandbox processes", () => {
  let recycling: SandboxPool;
  let starting: SandboxPool;
  let neverUsed: string;
  beforeAll(async () => {
    // No warm set: a game that wants a never-used process gets a recycled one where the pool can.
    recycling = await createTestPool({ size: 1, prewarm: 0, callTimeoutMs: 20_000, stepTimeoutMs: 3_000 });
    starting = await createTestPool({ size: 1, prewarm: 0, recycleProcesses: false, callTimeoutMs: 20_000 });
    const session = await starting.open(VICTIM);
    expect(processOf(session).recycles).toBe(0);
    // The reference is a process loaded from the snapshot, as every process the pools hand out
    // (a cold-booted one, e.g. after another pool replaced the file, gives other id()s).
    expect(processOf(session).loadedFromSnapshot).toBe(true);
    neverUsed = await transcript(session, 7);
    await session.close();
  }, 180_000);
  afterAll(async () => {
    await recycling?.dispose();
    await starting?.dispose();
  });

  it("plays a game after a hostile game in the same, recycled process exactly as in a never-used process", async () => {
    // Three plays: from the second on, the hostile game's plays start from the state its open left (tampered).
    let first: SandboxProcess | null = null;
    for (let play = 0; play < 3; play++) {
      const hostile = await recycling.open(HOSTILE);
      first ??= processOf(hostile);
      expect(processOf(hostile)).toBe(first);
      const [atOpen, inPlay] = JSON.parse((await hostile.reset(1)).observation) as string[][];
      // The audit hook refuses the files and the environment; everything else was changed in the interpreter.
      for (const done of [atOpen, inPlay]) {
        expect(done).toEqual(expect.arrayContaining(["builtin", "module", "collections", "path", "gc", "recursion", "umask"]));
        expect(done).not.toContain("file");
      }
      expect(inPlay).toEqual(expect.arrayContaining(["len", "dumps"]));
      await hostile.close();
    }
    expect(recycling.stats().opensFromBase).toBeGreaterThan(0);
    const recycled = recycling.stats().processesRecycled;
    const started = recycling.stats().processesStarted;
    const victim = await recycling.open(VICTIM);
    expect(processOf(victim)).toBe(first);
    expect(processOf(victim).recycles).toBe(1);
    expect(processOf(victim).loadedFromSnapshot).toBe(true);
    expect((victim as unknown as { freshInterpreter: boolean }).freshInterpreter).toBe(true);
    const seen = await transcript(victim, 7);
    await victim.close();
    expect(recycling.stats().processesRecycled).toBe(recycled + 1);
    expect(recycling.stats().processesStarted).toBe(started);
    expect(seen).toBe(neverUsed);
    const view = JSON.parse((JSON.parse(seen) as Array<{ observation: string }>)[0]?.observation ?? "{}") as Record<string, unknown>;
    expect(view).toMatchObject({ planted: false, len: 3, dumps: "[1]", modules: [], collections: "module", path: [], env: [], files: false });
  }, 120_000);

  it("gives a recycled process to validation's replay (freshProcess) and answers it as a never-used process", async () => {
    const code = VICTIM.replace("class VictimEnv", "class ReplayEnv");
    const first = await playOnce(recycling, code);
    const replay = await recycling.open(code, { freshProcess: true });
    expect(processOf(replay)).toBe(first);
    expect(processOf(replay).recycles).toBeGreaterThan(0);
    expect(await transcript(replay, 7)).toBe(neverUsed);
    await replay.close();
  }, 120_000);

  it("never recycles a process whose game opened a pipe, grew the memory or hung: it is replaced", async () => {
    const games = {
      pipe: "import os\nclass PipeEnv:\n    def reset(self, seed=None):\n        self.ends = os.pipe()\n        return 'pipe', {}\n    def step(self, action):\n        return '', 0.0, True, False, {}\n",
      growth: "class GrowEnv:\n    def reset(self, seed=None):\n        global held\n        held = bytearray(32 * 1024 * 1024)\n        return 'grown', {}\n    def step(self, action):\n        return '', 0.0, True, False, {}\n",
      hang: "class HangEnv:\n    def reset(self, seed=None):\n        return 'hang', {}\n    def step(self, action):\n        while True:\n            pass\n",
    };
    for (const [name, code] of Object.entries(games)) {
      const before = recycling.stats();
      const session = await recycling.open(code);
      const process = processOf(session);
      await session.reset(1);
      await session.step("x").catch((error: Error) => error);
      await session.close().catch((error: Error) => error);
      // Its plays are done: a recyclable process would be recycled now.
      recycling.planPlays(code, 0);
      await until(recycling, () => !process.alive);
      const after = VICTIM.replace("class VictimEnv", `class After${name}Env`);
      const next = await recycling.open(after);
      expect(processOf(next), name).not.toBe(process);
      // Against a never-used process's transcript of the same code: id()s follow what the open allocated (the class name's length included).
      const reference = await starting.open(after);
      expect(processOf(reference).loadedFromSnapshot).toBe(true);
      const expected = await transcript(reference, 7);
      await reference.close();
      expect(await transcript(next, 7), name).toBe(expected);
      await next.close();
      expect(recycling.stats().processesReplaced, name).toBeGreaterThan(before.processesReplaced);
    }
  }, 240_000);

  it("recycles a process as soon as its game's announced plays are done, and only then", async () => {
    const code = VICTIM.replace("class VictimEnv", "class PlannedEnv");
    recycling.planPlays(code, 2);
    const first = await recycling.open(code, { planned: true });
    const recycled = recycling.stats().processesRecycled;
    const process = processOf(first);
    await first.close();
    // One play to come: the game keeps its process.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(recycling.stats().processesRecycled).toBe(recycled);
    const second = await recycling.open(code, { planned: true });
    expect(processOf(second)).toBe(process);
    await second.close();
    await until(recycling, () => recycling.stats().processesRecycled === recycled + 1);
    expect(process.boundCode).toBeNull();
    const started = recycling.stats().processesStarted;
    const other = await recycling.open(VICTIM.replace("class VictimEnv", "class NextGameEnv"));
    expect(processOf(other)).toBe(process);
    await other.close();
    expect(recycling.stats().processesStarted).toBe(started);
    expect(recycling.stats().recycleP50Ms).toBeGreaterThan(0);
    expect(recycling.stats().recycleCpuMsP50).not.toBeNull();
  }, 120_000);

  it("with recycleProcesses off, never recycles: another game gets a process of its own", async () => {
    const first = await playOnce(starting, HOSTILE);
    const started = starting.stats().processesStarted;
    const second = await playOnce(starting, VICTIM.replace("class VictimEnv", "class OffEnv"));
    expect(second).not.toBe(first);
    const replay = await starting.open(VICTIM.replace("class VictimEnv", "class OffEnv"), { freshProcess: true });
    expect(processOf(replay)).not.toBe(second);
    await replay.close();
    starting.planPlays(VICTIM.replace("class VictimEnv", "class OffEnv"), 0);
    expect(starting.stats().processesRecycled).toBe(0);
    expect(starting.stats().processesStarted).toBeGreaterThan(started);
  }, 180_000);
});

describe("recycling chooses the process a game does not need", () => {
  let pool: SandboxPool;
  beforeAll(async () => {
    pool = await createTestPool({ concurrency: 1, prewarm: 0, capacity: 2 });
  }, 120_000);
  afterAll(async () => {
    await pool?.dispose();
  });

  it("recycles another game's idle process for a new game, never one whose game has plays to come", async () => {
    const game = (name: string) => VICTIM.replace("class VictimEnv", `class ${name}Env`);
    pool.planPlays(game("A"), 3);
    const a = await pool.open(game("A"), { planned: true });
    const processA = processOf(a);
    await a.close();
    const processB = await playOnce(pool, game("B")); // idle after A: the process idle longest is A's
    const recycled = pool.stats().processesRecycled;
    const processC = await playOnce(pool, game("C")); // B's process is recycled for C, not A's
    expect(processC).toBe(processB);
    expect(pool.stats().processesRecycled).toBe(recycled + 1);
    expect(pool.stats().processesEvicted).toBe(0);
    const again = await pool.open(game("A"), { planned: true });
    expect(processOf(again)).toBe(processA);
    await again.close();
  }, 120_000);
});

describe("the child's recycle, asked directly", () => {
  const files = Object.fromEntries(["spade_sandbox.py", "spade_env.py", "spade_repair.py", "spade_determinism.py", "spade_bridges.py"].map((name) => [name, readFileSync(resourcePath("python", name), "utf8")]));
  const start = async (recyclable: boolean) =>
    (
      await SandboxProcess.start({ launch: buildSandboxLaunch({ confinement: "auto" }), files, snapshotPath: null, wantSnapshot: false, memoryLimitMb: 1024, memoryPollMs: 25, idleCpuLimitMs: 5000, startTimeoutMs: 120_000, maxFrameBytes: 4 * 1024 * 1024, recyclable })
    ).process;
  const open = (process: SandboxProcess, code: string) => {
    const play = process.beginPlay();
    return process.request({ op: "open", code, maxObservationChars: 65_536, maxPrintChars: 65_536, textCaps: TEXT_CAPS, play }, "open", 20_000, { play }).then(() => play);
  };
  const reset = (process: SandboxProcess, play: number) => process.request({ op: "call", json: JSON.stringify({ op: "reset", seed: 1 }), play }, "reset()", 20_000, { play });
  const close = async (process: SandboxProcess, play: number) => {
    const reply = await process.request({ op: "close", play }, "close", 20_000, { play });
    process.endPlay(play);
    return reply;
  };

  it("refuses with a play open, after state outside the memory changed, and in a child started without recycling; recycles otherwise", async () => {
    const [kept, piped, plain] = await Promise.all([start(true), start(true), start(false)]);
    try {
      const game = VICTIM.replace("class VictimEnv", "class DirectEnv");
      let play = await open(kept, game);
      await reset(kept, play);
      await expect(kept.recycle(20_000)).rejects.toThrow(/no play open/);
      await close(kept, play);
      expect(await kept.recycle(20_000)).toMatchObject({ recycled: true, reason: "" });
      expect(kept.boundCode).toBeNull();
      // Bound to no code any more: another game opens in it.
      play = await open(kept, VICTIM.replace("class VictimEnv", "class SecondEnv"));
      expect((await reset(kept, play)).reply).toMatchObject({ ok: true });
      await close(kept, play);

      play = await open(piped, "import os\nclass PipeEnv:\n    def reset(self, seed=None):\n        self.ends = os.pipe()\n        return 'pipe', {}\n    def step(self, action):\n        return '', 0.0, True, False, {}\n");
      await reset(piped, play);
      expect((await close(piped, play)).kept).toBe(false);
      const refused = await piped.recycle(20_000);
      expect(refused.recycled).toBe(false);
      expect(refused.reason).toMatch(/state outside the interpreter's memory changed/);
      expect(piped.alive).toBe(false);

      const notRecyclable = await plain.recycle(20_000);
      expect(notRecyclable).toMatchObject({ recycled: false, reason: "this sandbox was started without recycling" });
      expect(plain.alive).toBe(false);
    } finally {
      for (const process of [kept, piped, plain]) process.kill();
    }
  }, 240_000);
});
