import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { resourcePath } from "../../main/paths.js";

// The bridge seal in two halves, in the machine's CPython: one before the memory snapshot (every
// namespace cleared and recorded), one after each restore (only what the restore changed is
// walked again). The sealed interpreter in Pyodide is tested by the reachability walk and the
// attack roads in tests/integration/sandboxHostile.test.ts.

const driver = fileURLToPath(new URL("../fixtures/sandbox/sealDriver.py", import.meta.url));

function seal(): Record<string, unknown> {
  const result = spawnSync("python3", [driver, resourcePath("python")], { encoding: "utf8", timeout: 30_000 });
  if (result.status !== 0) throw new Error(`the seal driver failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

describe("the bridge seal", () => {
  const outcome = seal();

  it("clears bridge objects from every namespace before the snapshot", () => {
    expect(outcome.before_restore).toEqual({ "early.hook": "None", "early.hooks": "[1]" });
  });

  it("clears what the restore rebinds, adds to a list or brings in a new module, and walks no namespace the restore left alone", () => {
    expect(outcome["quiet.late"]).toBe("None");
    expect(outcome["quiet.hooks"]).toBe("[]");
    expect(outcome["added.fn"]).toBe("None");
    expect(outcome.walked).toContain("stand_in_quiet");
    expect(outcome.walked).toContain("stand_in_added");
    expect(outcome.walked).not.toContain("stand_in_early");
    expect(outcome.record_left).toBe(0);
  });

  it("takes the bridge module out, empties it and refuses its classes' constructors", () => {
    expect(outcome.bridge_in_modules).toBe(false);
    expect(outcome.bridge_namespace).toEqual(["__name__"]);
    expect(outcome.construct).toBe("creating a JavaScript object is not available in the SPADE sandbox");
  });
});
