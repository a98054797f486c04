// The child's read grants, run under Node's permission model with exactly the flags the launcher
// gives: the descriptor folder it needs is readable, no link of /proc/self leads to the host's files.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildSandboxLaunch } from "../../main/sandbox/sandboxLaunch.js";

describe("the sandbox child's read grants", () => {
  it("grant /proc/self/fd/ only: the root, cwd and other /proc/self links stay closed", () => {
    const launch = buildSandboxLaunch({ confinement: "none" });
    const flags = launch.args.filter((arg) => /^--(experimental-)?permission$|^--allow-fs-read=/.test(arg));
    expect(flags.some((flag) => /^--(experimental-)?permission$/.test(flag))).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), "spade-grants-"));
    const probe = join(dir, "probe.cjs");
    writeFileSync(
      probe,
      `const fs = require("fs");
const tries = { fd: () => fs.readdirSync("/proc/self/fd"), fdLink: () => fs.readlinkSync("/proc/self/fd/0"),
  root: () => fs.readdirSync("/proc/self/root/"), rootFile: () => fs.readFileSync("/proc/self/root/etc/hostname"),
  cwd: () => fs.readdirSync("/proc/self/cwd"), environ: () => fs.readFileSync("/proc/self/environ"),
  escape: () => fs.readdirSync("/proc/self/fd/../root"), version: () => fs.readFileSync("/proc/version") };
const result = {};
for (const [name, attempt] of Object.entries(tries)) { try { attempt(); result[name] = "read"; } catch (e) { result[name] = e.code; } }
process.stdout.write(JSON.stringify(result));`,
    );
    const run = spawnSync(process.execPath, [...flags, `--allow-fs-read=${dir}`, probe], { encoding: "utf8" });
    const result = JSON.parse(run.stdout) as Record<string, string>;
    expect(result).toMatchObject({ fd: "read", fdLink: "read" });
    for (const name of ["root", "rootFile", "cwd", "environ", "escape", "version"]) expect(result[name], name).toBe("ERR_ACCESS_DENIED");
  });
});
