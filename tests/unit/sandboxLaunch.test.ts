import { spawn } from "node:child_process";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { buildSandboxLaunch, permissionFlag, pyodideDirectory, sandboxEnvironment, sandboxHostScript } from "../../main/sandbox/sandboxLaunch.js";

/** Starts the sandbox host with `flags` and returns its first frame. */
function firstFrame(flags: string[]): Promise<{ ok: boolean; error?: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, sandboxHostScript(), pyodideDirectory()], { stdio: ["ignore", "ignore", "pipe", "pipe"], env: {} });
    let text = "";
    child.stdio[3]?.on("data", (chunk) => (text += chunk));
    child.on("exit", () => {
      try {
        resolve(JSON.parse(text.split("\n")[0] ?? ""));
      } catch {
        reject(new Error(`no frame: ${text}`));
      }
    });
  });
}

describe("the sandbox child's command line", () => {
  it("passes no environment variable from the parent, only Electron's run-as-node switch inside Electron", () => {
    expect(sandboxEnvironment({ node: "20.20.2" } as NodeJS.ProcessVersions)).toEqual({});
    expect(sandboxEnvironment({ node: "22.20.0", electron: "40.10.0" } as NodeJS.ProcessVersions)).toEqual({ ELECTRON_RUN_AS_NODE: "1" });
    process.env.SPADE_TEST_SECRET = "sk-secret";
    try {
      expect(JSON.stringify(buildSandboxLaunch().env)).not.toContain("sk-secret");
    } finally {
      delete process.env.SPADE_TEST_SECRET;
    }
  });
  it("collects the child's garbage on its own thread: V8 starts no garbage-collection helper work in it", () => {
    const { args } = buildSandboxLaunch({ confinement: "none" });
    expect(args).toContain("--single-threaded-gc");
    // Before the script: a V8 flag, not an argument of the sandbox host.
    expect(args.indexOf("--single-threaded-gc")).toBeLessThan(args.indexOf(sandboxHostScript()));
  });
  it("uses the permission flag of the running Node", () => {
    expect(permissionFlag("20.20.2")).toBe("--experimental-permission");
    expect(permissionFlag("22.12.0")).toBe("--experimental-permission");
    expect(permissionFlag("22.13.0")).toBe("--permission");
    expect(permissionFlag("24.1.0")).toBe("--permission");
    expect(buildSandboxLaunch().args).toContain(permissionFlag());
  });
  it("refuses to run code without the permission model, or with code generation from strings allowed", async () => {
    const withoutPermission = await firstFrame(["--disallow-code-generation-from-strings"]);
    expect(withoutPermission).toMatchObject({ ok: false });
    expect(withoutPermission.error).toContain("without Node's permission model");
    const reads = [`--allow-fs-read=${pyodideDirectory()}`, `--allow-fs-read=${dirname(sandboxHostScript())}`, "--allow-fs-read=/proc/self/fd/", "--allow-worker"];
    const withEval = await firstFrame([permissionFlag(), ...reads]);
    expect(withEval).toMatchObject({ ok: false });
    expect(withEval.error).toContain("code generation from strings");
  });
});
