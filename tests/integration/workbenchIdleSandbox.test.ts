// The workbench (`spade serve`, the app) does not keep idle sandbox processes for as long as it runs
// (issue 23 saw four idle, 1.1 GB): processes with no session open are ended after the idle time
// (SPADE_SANDBOX_IDLE_SECONDS, default 60) and started again at the next use. Real sandbox processes.
import { readdirSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { createEnvironmentRuntime, SANDBOX_IDLE_ENV, workbenchSandboxIdleMs, type EnvironmentRuntime } from "../../main/api/EngineParts.js";
import { TEST_SNAPSHOT_DIR } from "../support/sandboxTestPool.js";

const code = `
class TinyEnv:
    def reset(self, seed=None):
        return "Say go.", {}
    def step(self, action):
        return "done", 1.0, True, False, {}
`;

/** Sandbox processes started by this process (their command line names the sandbox host script). */
function sandboxChildren(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${entry}/status`, "utf8"))?.[1]);
      if (ppid === process.pid && readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("sandboxHost")) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

describe("the workbench's idle sandbox processes", () => {
  let runtime: EnvironmentRuntime | null = null;
  const saved = process.env[SANDBOX_IDLE_ENV];
  afterEach(async () => {
    await runtime?.dispose();
    runtime = null;
    if (saved === undefined) delete process.env[SANDBOX_IDLE_ENV];
    else process.env[SANDBOX_IDLE_ENV] = saved;
  });

  it("reads the idle time from SPADE_SANDBOX_IDLE_SECONDS, 60 s when unset, and names the variable when it is wrong", () => {
    expect(workbenchSandboxIdleMs({})).toBe(60_000);
    expect(workbenchSandboxIdleMs({ [SANDBOX_IDLE_ENV]: "2.5" })).toBe(2500);
    expect(() => workbenchSandboxIdleMs({ [SANDBOX_IDLE_ENV]: "0" })).toThrow(/SPADE_SANDBOX_IDLE_SECONDS must be a number of seconds greater than 0, got "0"/);
    expect(() => workbenchSandboxIdleMs({ [SANDBOX_IDLE_ENV]: "soon" })).toThrow(/got "soon"/);
  });

  it.skipIf(process.platform !== "linux")("ends the sandbox processes once none was used for the idle time, and validates again after", async () => {
    process.env[SANDBOX_IDLE_ENV] = "1";
    runtime = await createEnvironmentRuntime({ snapshotCacheDir: TEST_SNAPSHOT_DIR });
    expect((await runtime.validate(code)).valid).toBe(true);
    expect(sandboxChildren().length).toBeGreaterThan(0);
    const deadline = Date.now() + 30_000;
    while (sandboxChildren().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sandboxChildren()).toEqual([]);
    expect((await runtime.validate(code)).valid).toBe(true);
  }, 120_000);
});
