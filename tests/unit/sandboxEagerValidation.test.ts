import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { WASM_COMPILE_FLAGS, sandboxHostScript } from "../../main/sandbox/sandboxLaunch.js";

const probe = fileURLToPath(new URL("../fixtures/sandbox/eagerValidationProbe.mjs", import.meta.url));
const eagerValidation = join(sandboxHostScript(), "..", "eagerValidation.mjs");

/** What compiling a valid and an invalid module gives under the sandbox child's compile flags. */
function compileUnderChildFlags(mode: "eager" | "none"): Record<string, string> {
  const result = spawnSync(process.execPath, [...WASM_COMPILE_FLAGS, probe, mode, eagerValidation], { encoding: "utf8", env: {}, timeout: 30_000 });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "") as Record<string, string>;
}

describe("WebAssembly validation in the sandbox child", () => {
  it("compiles with lazy validation: an invalid function throws at its first call, never runs", () => {
    expect(WASM_COMPILE_FLAGS).toContain("--wasm-lazy-validation");
    const lazy = compileUnderChildFlags("none");
    expect(lazy.invalidModule).toBe("ok: true");
    expect(lazy.invalidCompile).toBe("ok: true");
    expect(lazy.trustedCall).toMatch(/^CompileError: Compiling function #0 failed/);
  });
  it("validates every module in full before compiling it, except the one trusted module, once and only while trusted", () => {
    const eager = compileUnderChildFlags("eager");
    expect(eager.validModule).toBe("ok: true 42");
    expect(eager.validInstantiate).toBe("ok: 42");
    for (const way of ["invalidModule", "invalidCompile", "invalidInstantiate", "trustedOnlyOnce", "trustWithdrawn"]) {
      expect(eager[way], way).toMatch(/^CompileError: WebAssembly\.\w+\(\): the module is not valid WebAssembly/);
    }
    expect(eager.trustedCompile).toBe("ok: true");
    expect(eager.trustedCall).toMatch(/^CompileError: Compiling function #0 failed/);
  });
});
