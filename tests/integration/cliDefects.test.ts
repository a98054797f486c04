// Small defects of the command line that a newcomer meets first: help on command groups, a report
// piped into `head`, a failed run's error in the report.
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildUiFixture } from "../../main/bench/uiFixture.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { createRun } from "../../main/store/queries/runs.js";
import { spadeCli } from "../support/startCli.js";

function spade(args: string[]) {
  return spawnSync(process.execPath, [spadeCli, ...args], { encoding: "utf8", timeout: 60_000 });
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-cli-defects-"));
});

describe("spade command groups", () => {
  it.each([
    ["env", ["env validate", "env play"]],
    ["envs", ["envs export", "envs import"]],
  ])("spade %s --help exits 0 and lists the subcommands", (group, subcommands) => {
    for (const flag of ["--help", "-h"]) {
      const result = spade([group, flag]);
      expect(result.stderr).toBe("");
      expect(result.status).toBe(0);
      for (const sub of subcommands) expect(result.stdout).toContain(`spade ${sub}`.replace("spade ", ""));
    }
    const bare = spade([group]);
    expect(bare.status).toBe(2);
    expect(bare.stderr).toMatch(new RegExp(`spade ${group}: a subcommand is required`));
  });
});

describe("spade report", () => {
  it("piped into head -2: two lines, exit 0, no EPIPE stack trace", () => {
    const db = join(dir, "big.sqlite");
    buildUiFixture(db, { extraEnvironments: 3000 });
    const result = spawnSync("bash", ["-o", "pipefail", "-c", `"${process.execPath}" "${spadeCli}" report --db "${db}" | head -2`], { encoding: "utf8", timeout: 60_000 });
    expect(result.stderr).toBe("");
    expect(result.stdout.split("\n").filter(Boolean)).toHaveLength(2);
    expect(result.status).toBe(0);
  }, 120_000);

  it("prints a failed run's error", () => {
    const path = join(dir, "failed.sqlite");
    const db = openDatabase(path);
    createRun(db, { name: "broken", status: "failed" });
    db.prepare("UPDATE runs SET error = ? WHERE id = 1").run("environment set \"examples\" is empty or does not exist");
    db.close();
    const result = spade(["report", "--db", path]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('run 1 "broken" failed, 0 iterations\n  error: environment set "examples" is empty or does not exist\n');
  });
});
