import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxEnvSession } from "../../main/sandbox/SandboxEnvSession.js";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { expectOpensInMode, inRecycledProcess, SANDBOX_PROCESS_MODES } from "../support/sandboxProcessModes.js";
import { createTestPool } from "../support/sandboxTestPool.js";

// Reports what a fresh environment sees of the interpreter, then applies one tampering.
function tamperingEnv(tamper: string): string {
  return `
import builtins, collections, copyreg, decimal, json, math, os, random, sys
import spade_env

class TamperEnv:
    def reset(self, seed=None):
        seen = {
            "len": len([1, 2, 3]),
            "planted": hasattr(builtins, "SPADE_PLANTED"),
            "random": getattr(random.random, "__name__", "patched"),
            "instance_random": "random" in vars(random._inst),
            "dumps": json.dumps([1]),
            "pi": math.pi,
            "collections": sys.modules.get("collections") is collections,
            "recursion": sys.getrecursionlimit(),
            "path": "/evil" in sys.path,
            "dispatch": len(copyreg.dispatch_table),
            "prec": decimal.getcontext().prec,
            "file": os.path.exists("/tmp/planted.txt"),
            "base_step": spade_env.ToolUseBaseEnv.step.__name__,
            "heapq": __import__("heapq").heappush.__name__,
        }
        observation = json.dumps(seen, sort_keys=True)
${tamper
  .trim()
  .split("\n")
  .map((line) => `        ${line}`)
  .join("\n")}
        return observation, {}
`;
}

const TAMPERINGS: Record<string, string> = {
  "a builtin": "builtins.len = lambda value: 42\nbuiltins.SPADE_PLANTED = True",
  "a module attribute": "random.random = lambda: 0.5\njson.dumps = lambda *args, **kwargs: 'patched'\nmath.pi = 3",
  "an attribute of a module-level object": "random._inst.random = lambda: 0.5",
  "sys.modules": "sys.modules['collections'] = type(sys)('collections')",
  "module-level containers": "sys.path.append('/evil')\ncopyreg.dispatch_table[complex] = lambda value: (complex, (0, 0))",
  "interpreter settings": "decimal.getcontext().prec = 3\nsys.setrecursionlimit(500)",
  "a class it did not define": "spade_env.ToolUseBaseEnv.step = lambda self, action: None",
  "a module imported later": "import heapq\nheapq.heappush = lambda heap, item: None",
  "a stdlib cache": "import re, functools\nre._cache2 = {('x', 0): None} if hasattr(re, '_cache2') else {}\nre.compile('planted')",
};

// Refused outright by the harness's audit hook while environment code runs.
const REFUSED: Record<string, string> = {
  "the file system": "open('/tmp/planted.txt', 'w').write('left for the next one')",
  "the garbage collector's object walk": "gc_objects = __import__('gc').get_objects()",
  "a frame": "frame = sys._getframe(0)",
  "a traceback's frame": "try:\n    1 / 0\nexcept ZeroDivisionError as error:\n    frame = error.__traceback__.tb_frame",
  "tracing": "sys.settrace(lambda *args: None)",
};

const cleanView = tamperingEnv("pass");

// Against never-used processes, and against processes that ran another environment and were recycled.
describe.each(SANDBOX_PROCESS_MODES)("isolation between environments and sessions ($mode)", ({ options, recycled }) => {
  let pool: SandboxPool;
  let pristine: string;
  const opens = { all: 0, recycled: 0 };
  beforeAll(async () => {
    pool = await createTestPool({ size: 1, ...options });
    pristine = await firstObservation(cleanView);
  });
  afterAll(async () => {
    await pool?.dispose();
  });

  async function firstObservation(code: string): Promise<string> {
    const session = await pool.open(code);
    opens.all++;
    if (inRecycledProcess(session)) opens.recycled++;
    try {
      return (await session.reset(1)).observation;
    } finally {
      await session.close();
    }
  }

  it("gives the next environment a pristine interpreter after every kind of tampering", async () => {
    expect(JSON.parse(pristine)).toMatchObject({ len: 3, planted: false, random: "random", pi: Math.PI, collections: true, path: false, prec: 28, file: false, base_step: "step", heapq: "heappush" });
    const refused = `for snippet in ${JSON.stringify(Object.values(REFUSED))}:\n    try:\n        exec(snippet)\n    except BaseException:\n        pass`;
    // The builtin goes last: a len() that answers 42 breaks the standard library the others use.
    const ordered = Object.entries(TAMPERINGS).sort(([kind]) => (kind === "a builtin" ? 1 : -1)).map(([, tamper]) => tamper);
    const everything = tamperingEnv([refused, ...ordered].join("\n"));
    await firstObservation(everything);
    expect(await firstObservation(cleanView)).toBe(pristine);
  });

  // Plays of the same code share a process: each starts from the restored pristine memory, so a
  // change made in one play is gone in the next (restored, not checked).
  it.each(Object.entries(TAMPERINGS))("starts the next play of the same code pristine after it changed %s", async (_kind, tamper) => {
    const code = tamperingEnv(tamper);
    const before = pool.stats().reusedInterpreters;
    // The second play runs the code again from the pristine interpreter; the third starts from the state right after that open.
    const first = await firstObservation(code);
    const second = await firstObservation(code);
    const third = await firstObservation(code);
    expect(first).toBe(pristine);
    expect(second).toBe(pristine);
    expect(third).toBe(pristine);
    expect(pool.stats().reusedInterpreters).toBe(before + 2);
  });

  // From the first reuse on, a play starts from the interpreter as the open of its code left it
  // (the code is not run again): whatever a play changes after that point, in the module, its
  // class, the instance or a builtin, is gone for the next one, and what the open printed is
  // reported to every session as if the code had run.
  it("starts every later play from the state right after the open, printing what the open printed", async () => {
    const code = `
import builtins, json, random
print("module ran")
LOADED = [0]
LOADED[0] += 1

class CountingEnv:
    opened = 0
    def __init__(self):
        CountingEnv.opened += 1
        self.draw = random.random()
        self.steps = 0
    def reset(self, seed=None):
        LOADED[0] += 100
        CountingEnv.opened += 100
        builtins.SPADE_COUNT = getattr(builtins, "SPADE_COUNT", 0) + 1
        self.steps += 1000
        return json.dumps([LOADED[0], CountingEnv.opened, self.draw, self.steps, builtins.SPADE_COUNT, random.random()]), {}
    def step(self, action):
        self.steps += 1
        return str(self.steps), 0.0, False, False, {}
`;
    const before = pool.stats();
    const plays: { observation: string; step: string; printed: string }[] = [];
    for (let play = 0; play < 4; play++) {
      const session = (await pool.open(code)) as SandboxEnvSession;
      try {
        const observation = (await session.reset(5)).observation;
        const step = (await session.step("go")).observation;
        plays.push({ observation, step, printed: session.printed() });
      } finally {
        await session.close();
      }
    }
    expect(pool.stats().reusedInterpreters).toBe(before.reusedInterpreters + 3);
    // The first play and the first reuse run the code; the third and fourth start from the state the second open left.
    expect(pool.stats().opensFromBase).toBe(before.opensFromBase + 2);
    const [first] = plays;
    expect(JSON.parse(first!.observation).slice(0, 5)).toEqual([101, 101, expect.any(Number), 1000, 1]);
    expect(first!.step).toBe("1001");
    expect(first!.printed).toBe("module ran\n");
    for (const later of plays.slice(1)) expect(later).toEqual(first);
  });

  it.each(Object.entries(REFUSED))("refuses a change to %s while environment code runs", async (_kind, tamper) => {
    const session = await pool.open(tamperingEnv(tamper));
    try {
      await expect(session.reset(1)).rejects.toThrow(/PermissionError: .*not allowed in the SPADE sandbox/);
    } finally {
      await session.close();
    }
    expect(await firstObservation(cleanView)).toBe(pristine);
  });

  it(recycled ? "ran its environments in processes that served another environment and were recycled" : "ran its environments in never-used processes only", () => {
    expectOpensInMode(pool, opens, recycled);
  });
});
