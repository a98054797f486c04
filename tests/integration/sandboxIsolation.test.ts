import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
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
  "interpreter settings": "sys.setrecursionlimit(500)\ndecimal.getcontext().prec = 3",
  "a class it did not define": "spade_env.ToolUseBaseEnv.step = lambda self, action: None",
  "the file system": "open('/tmp/planted.txt', 'w').write('left for the next one')",
  "a module imported later": "import heapq\nheapq.heappush = lambda heap, item: None",
};

const cleanView = tamperingEnv("pass");

describe("isolation between environments and sessions", () => {
  let pool: SandboxPool;
  let pristine: string;
  beforeAll(async () => {
    pool = await createTestPool({ size: 1 });
    pristine = await firstObservation(cleanView);
  });
  afterAll(async () => {
    await pool?.dispose();
  });

  async function firstObservation(code: string): Promise<string> {
    const session = await pool.open(code);
    try {
      return (await session.reset(1)).observation;
    } finally {
      await session.close();
    }
  }

  it("gives the next environment a pristine interpreter after every kind of tampering", async () => {
    expect(JSON.parse(pristine)).toMatchObject({ len: 3, planted: false, random: "random", pi: Math.PI, collections: true, path: false, prec: 28, file: false, base_step: "step", heapq: "heappush" });
    const everything = tamperingEnv(Object.values(TAMPERINGS).join("\n"));
    await firstObservation(everything);
    expect(await firstObservation(cleanView)).toBe(pristine);
  });

  // One case per detection path (namespace comparison, class comparison, audit hook); every kind
  // of change is covered against the harness directly in tests/unit/sandboxHarness.test.ts.
  const SAME_CODE = ["a builtin", "a class it did not define", "the file system"].map((kind) => [kind, TAMPERINGS[kind] as string]);
  it.each(SAME_CODE)("does not reuse an interpreter for the same code after it tampered with %s", async (_kind, tamper) => {
    const code = tamperingEnv(tamper);
    const first = await firstObservation(code);
    const second = await firstObservation(code);
    expect(first).toBe(pristine);
    expect(second).toBe(pristine);
  });
});
