// The Environments page's and the set view's "Export…": the API writes the same packages as
// `spade envs export --format`, and refuses what the CLI refuses.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Workbench } from "../../../main/api/Workbench.js";
import { fixtureCode } from "../../../main/bench/uiFixture.js";
import { addEnvSetMembers } from "../../../main/store/queries/envSets.js";
import { checkCall } from "../../../shared/api/methodTable.js";
import type { EnvPackageManifest } from "../../../shared/envExport.js";

let dir: string;
let workbench: Workbench;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-export-api-"));
  workbench = Workbench.open({ dbPath: join(dir, "w.sqlite"), modelsDir: join(dir, "models") });
  addEnvSetMembers(workbench.db, "pool", [{ code: fixtureCode, source: "guess.py", className: "GuessNumberEnv", hint: "Halve the range each time.", skill: "Logical Deduction" }]);
});

afterAll(async () => {
  await workbench?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("exportEnvironments (the Export… action)", () => {
  it("writes a set's packages into the workspace's exports/<format> folder by default", async () => {
    const result = await workbench.api.exportEnvironments({ format: "verifiers", set: "pool" });
    expect(result).toMatchObject({ format: "verifiers", outDir: join(dir, "exports", "verifiers"), packages: 1, selection: "set:pool" });
    const manifest = JSON.parse(readFileSync(join(result.outDir, "manifest.json"), "utf8")) as EnvPackageManifest;
    expect(manifest.packages).toEqual([{ path: "guess_number", className: "GuessNumberEnv", source: "set:pool/guess.py" }]);
    expect(manifest.files).toHaveLength(result.files);
    expect(readFileSync(join(result.outDir, "guess_number/spade_guess_number/spade_runtime/game.json"), "utf8")).toContain('"hint": "Halve the range each time."');
  });

  it("writes where the form says, relative to the workspace", async () => {
    const result = await workbench.api.exportEnvironments({ format: "game-files", set: "pool", outDir: "mine/games" });
    expect(result.outDir).toBe(join(dir, "mine", "games"));
    const games = readdirSync(join(dir, "mine/games")).filter((name) => name.endsWith(".py"));
    expect(games).toHaveLength(1);
    expect(games[0]).toMatch(/^game_00000_\d{15}_logical_deduction\.py$/);
  });

  it("refuses an unknown set, an empty selection, an unknown format and a set with a run", async () => {
    await expect(workbench.api.exportEnvironments({ format: "gem", set: "nope" })).rejects.toThrow('no environment set "nope"');
    await expect(workbench.api.exportEnvironments({ format: "gem" })).rejects.toThrow("nothing to export");
    expect(() => checkCall("exportEnvironments", { format: "gym", set: "pool" })).toThrow(`exportEnvironments: field "format" must be one of "openenv", "verifiers", "gem", "game-files", got "gym"`);
    await expect(workbench.api.exportEnvironments({ format: "gem", set: "pool", runId: 1 })).rejects.toThrow("give a set, or a run and a filter, not both");
  });
});
