// The runtime every environment package carries (resources/exports/runtime): generated code plays in
// its own Python process, and a step that hangs is killed at its deadline and scored as the
// reference scores a failing step (-1, episode over), without taking the trainer's process along.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

const hangingGame = `
class HangEnv:
    def __init__(self, max_turns=5, **kwargs):
        self.reset()

    def reset(self, seed=None):
        return "Say hang.", {}

    def step(self, action):
        if "hang" in action:
            while True:
                pass
        if "boom" in action:
            raise ValueError("boom")
        return "ok", 0.5, False, False, {}
`;

function runtimeFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "spade-runtime-"));
  const runtime = join(dir, "spade_runtime");
  mkdirSync(runtime);
  for (const name of readdirSync(join(root, "resources/exports/runtime"))) copyFileSync(join(root, "resources/exports/runtime", name), join(runtime, name));
  copyFileSync(join(root, "resources/python/spade_env.py"), join(runtime, "spade_env.py"));
  writeFileSync(join(runtime, "game_code.py"), hangingGame);
  writeFileSync(join(runtime, "game.json"), JSON.stringify({ className: "HangEnv", kind: "text", hint: null, maxTurns: 2, firstTurnTemplate: null }));
  return dir;
}

describe("the packages' runtime", () => {
  it("ProcessGame kills a step past its deadline and scores it -1, ending the episode; an exception scores -1; the turn limit truncates", () => {
    const dir = runtimeFolder();
    const script = [
      "import json, sys, time",
      `sys.path.insert(0, ${JSON.stringify(dir)})`,
      "from spade_runtime import ProcessGame",
      "game = ProcessGame(timeout_s=1.0)",
      "game.reset(seed=0)",
      "hung = game.step('\\\\boxed{hang}')",
      "alive = game._process is not None and game._process.poll() is None",
      "game.close()",
      "other = ProcessGame()",
      "other.reset(seed=0)",
      "boom = other.step('\\\\boxed{boom}')",
      "other.reset(seed=1)",
      "limit = [other.step('\\\\boxed{a}'), other.step('\\\\boxed{b}')]",
      "other.close()",
      "print(json.dumps({'hung': hung, 'alive': alive, 'boom': boom, 'limit': limit}))",
    ].join("\n");
    const result = spawnSync("/usr/bin/python3", ["-c", script], { encoding: "utf8", timeout: 60_000 });
    expect(result.status, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout) as { hung: [string, number, boolean, boolean, Record<string, unknown>]; alive: boolean; boom: [string, number, boolean]; limit: Array<[string, number, boolean, boolean]> };
    expect(out.hung.slice(1)).toEqual([-1, true, false, { stepError: true }]);
    expect(out.hung[0]).toContain("did not answer step within 1.0 s");
    expect(out.alive).toBe(false);
    expect(out.boom.slice(0, 3)).toEqual(["Error: ValueError: boom", -1, true]);
    expect(out.limit.map((step) => step.slice(1, 4))).toEqual([[0.5, false, false], [0.5, false, true]]);
  }, 90_000);
});
