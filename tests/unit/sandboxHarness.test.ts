import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { resourcePath } from "../../main/paths.js";

// The harness's verdict on whether an interpreter is still clean after a session, run in the
// machine's CPython (fast). The same harness runs in Pyodide in the sandbox, where a session that
// is not clean gets a fresh interpreter next time (see tests/integration/sandboxIsolation.test.ts).

const driver = fileURLToPath(new URL("../fixtures/sandbox/harnessDriver.py", import.meta.url));

interface Verdict {
  reset: { ok: boolean };
  close: { clean: boolean; difference: string | null };
  taints: string[];
  modules: string[];
}

function session(body: string): Verdict {
  const code = `import builtins, copyreg, decimal, gc, random, sys\nimport spade_env\n\nclass ProbeEnv:\n    def reset(self, seed=None):\n${body
    .split("\n")
    .map((line) => `        ${line}`)
    .join("\n")}\n        return "done", {}\n`;
  const result = spawnSync("python3", [driver, resourcePath("python")], { input: code, encoding: "utf8", timeout: 30_000 });
  if (result.status !== 0) throw new Error(`the harness driver failed: ${result.stderr}`);
  const lines = result.stdout.trim().split("\n");
  const [, reset, close] = lines.slice(0, 3).map((line) => JSON.parse(line));
  return {
    reset,
    close: close.result,
    taints: lines.filter((line) => line.startsWith("TAINT ")).map((line) => line.slice(6)),
    modules: (lines.find((line) => line.startsWith("MODULES ")) ?? "").slice(8).split(" "),
  };
}

describe("the harness's cleanliness check", () => {
  it("calls a session that only touched its own objects clean", () => {
    const verdict = session("self.board = [1, 2, 3]\nrandom.shuffle(self.board)\nimport colorsys\ncolorsys.rgb_to_hsv = None");
    expect(verdict.reset.ok).toBe(true);
    expect(verdict.close).toMatchObject({ clean: true, difference: null });
    expect(verdict.taints).toEqual([]);
    // A module first imported during the session is dropped, so the next one imports it afresh.
    expect(verdict.modules).not.toContain("colorsys");
  });

  it.each([
    ["a builtin", "builtins.abs = lambda value: 0\nbuiltins.SPADE_PLANTED = True", "builtins"],
    ["a module attribute", "random.random = lambda: 0.5", "random"],
    ["a module-level object's attribute", "random._inst.random = lambda: 0.5", "random._inst.__dict__"],
    ["sys.modules", "sys.modules['copyreg'] = None", "sys.modules['copyreg']"],
    ["a module-level list", "sys.path.append('/evil')", "sys.path"],
    ["a module-level dict", "copyreg.dispatch_table[complex] = print", "copyreg.dispatch_table"],
    ["the recursion limit", "sys.setrecursionlimit(321)", "interpreter settings (recursion limit, int digits, gc or the decimal context)"],
    ["the decimal context", "decimal.getcontext().prec = 3", "interpreter settings (recursion limit, int digits, gc or the decimal context)"],
    ["a class it did not define", "spade_env.ToolUseBaseEnv.FORMAT_ERROR_REWARD = 5", "spade_env.ToolUseBaseEnv (class)"],
  ])("notices a change to %s", (_what, body, difference) => {
    const verdict = session(body);
    expect(verdict.reset.ok).toBe(true);
    expect(verdict.close).toMatchObject({ clean: false, difference });
  });

  it("answers with an error and marks the interpreter tainted when the environment breaks the harness itself", () => {
    const verdict = session("builtins.len = lambda value: 0");
    expect(verdict.close).toBeUndefined();
    expect(verdict.taints).toContain("the environment broke the harness");
  });

  it.each([
    ["a file write", "open('/tmp/spade-harness-test.txt', 'w').close()", "for writing"],
    ["a walk over all objects", "gc.get_objects()", "gc.get_objects"],
    ["a frame", "sys._getframe(1)", "sys._getframe"],
    ["swapping a function's code", "random.shuffle.__func__.__code__ = (lambda self, x: None).__code__", "object.__setattr__ '__code__' on function"],
  ])("marks the interpreter tainted after %s", (_what, body, reason) => {
    const verdict = session(body);
    expect(verdict.taints.join(" | ")).toContain(reason);
  });
});
