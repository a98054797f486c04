import { describe, expect, it } from "vitest";
import { buildSandboxLaunch, permissionFlag, sandboxEnvironment } from "../../main/sandbox/sandboxLaunch.js";

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
  it("uses the permission flag of the running Node", () => {
    expect(permissionFlag("20.20.2")).toBe("--experimental-permission");
    expect(permissionFlag("22.12.0")).toBe("--experimental-permission");
    expect(permissionFlag("22.13.0")).toBe("--permission");
    expect(permissionFlag("24.1.0")).toBe("--permission");
    expect(buildSandboxLaunch().args).toContain(permissionFlag());
  });
});
