// `spade envs export` says what it leaves out and keeps what a folder already holds: games with
// identical code are written once with a note, and a second export into the same folder keeps the
// first one's packages in manifest.json.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { EnvPackageManifest } from "../../shared/envExport.js";
import { fixtureCode } from "../../main/bench/uiFixture.js";
import { envsExportCommand } from "../../main/cli/commands/envsExportCommand.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { createRun } from "../../main/store/queries/runs.js";
import { envCode } from "../support/selfPlayScript.js";
import { runCommand } from "../support/runCommand.js";

describe("spade envs export --format", () => {
  it("notes games dropped as identical code, and an export into an existing folder keeps the manifest's earlier packages", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spade-env-export-notes-"));
    const path = join(dir, "w.sqlite");
    const db = openDatabase(path);
    const first = createRun(db, { status: "completed" });
    for (const slot of [0, 1, 2]) insertEnvironment(db, { runId: first.id, iteration: 0, slot, attempt: 0, source: "designer", code: envCode.magic, valid: true, className: "MagicWordEnv" });
    insertEnvironment(db, { runId: first.id, iteration: 0, slot: 3, attempt: 0, source: "designer", code: envCode.riddle, valid: true, className: "RiddleEnv" });
    const second = createRun(db, { status: "completed" });
    insertEnvironment(db, { runId: second.id, iteration: 0, slot: 0, attempt: 0, source: "designer", code: fixtureCode, valid: true, className: "GuessNumberEnv" });
    db.close();
    const out = join(dir, "packages");

    const once = await runCommand(envsExportCommand, ["--db", path, "--run", String(first.id), "--format", "openenv", "--out", out]);
    expect(once.code, once.stderr).toBe(0);
    expect(once.stderr).toContain(`wrote 2 openenv packages to ${out}\n`);
    expect(once.stderr).toContain("note: 2 valid environments were left out: their code is identical to one exported\n");
    const firstManifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")) as EnvPackageManifest;
    expect(firstManifest.packages).toHaveLength(2);

    const again = await runCommand(envsExportCommand, ["--db", path, "--run", String(second.id), "--format", "openenv", "--out", out]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe(`wrote 1 openenv package to ${out} (its manifest keeps 2 earlier: 3 packages in all)\n`);
    const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")) as EnvPackageManifest;
    expect(manifest.packages.map((entry) => entry.className).sort()).toEqual(["GuessNumberEnv", "MagicWordEnv", "RiddleEnv"]);
    for (const entry of firstManifest.files) expect(manifest.files.map((file) => file.path)).toContain(entry.path);
    expect(manifest.selection).toBe(`run:${first.id} (valid); run:${second.id} (valid)`);

    // The JSONL export says the same.
    const jsonl = await runCommand(envsExportCommand, ["--db", path, "--run", String(first.id), "--out", join(dir, "envs.jsonl")]);
    expect(jsonl.stderr).toContain("note: 2 valid environments were left out: their code is identical to one exported\n");
  });
});
