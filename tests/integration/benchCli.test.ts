// `spade bench --json` prints the numbers of the sections that ran and a {skipped, reason} object
// for those that cannot run here (no model, no Chromium), and exits 0.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const cli = join(import.meta.dirname, "..", "..", "out", "engine", "main", "cli", "spade.js");

describe.skipIf(!existsSync(cli))("spade bench --json with sections that cannot run", () => {
  it("keeps the JSON of the sections that ran and reports the others as skipped", () => {
    const result = spawnSync(process.execPath, [cli, "bench", "--json", "--only", "export,llm,ui"], {
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, SPADE_BENCH_MODEL: "/no/such/model.gguf", CHROMIUM_PATH: "/no/such/chromium" },
    });
    expect(result.status, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout.trim()) as Record<string, Record<string, unknown>>;
    expect(json.llm).toEqual({ skipped: true, reason: "no model (set SPADE_BENCH_MODEL to a GGUF file)" });
    expect(json.ui).toEqual({ skipped: true, reason: "no Chromium at /no/such/chromium (install Debian's chromium, or set CHROMIUM_PATH)" });
    expect(json.export!.playsPerSec).toBeGreaterThan(0);
    expect(result.stderr).toContain("bench ui: skipped: no Chromium");
  }, 120_000);
});
