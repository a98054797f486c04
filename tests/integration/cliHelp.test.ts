// `--help` on every command and subcommand: exit 0, the usage line and every declared option with
// its default, printed on stdout. The option list comes from the same declaration the parser uses.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commands } from "../../main/cli/commands.js";

const root = join(import.meta.dirname, "..", "..");
const cli = join(root, "out", "engine", "main", "cli", "spade.js");

function spade(args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", timeout: 60_000, env: { ...process.env, SPADE_WORKSPACE: join(root, ".no-such-dir", "w.sqlite") } });
}

/** The options a command's source declares in its parseCommandArgs call. */
function declaredOptions(source: string): string[] {
  const start = source.indexOf("parseCommandArgs(");
  const call = source.slice(start, source.indexOf(");\n", start));
  return [...call.matchAll(/(?:"([a-z-]+)"|([a-z]+)): \{ type: "(?:string|boolean)"/g)].map((match) => match[1] ?? match[2]!);
}

describe.skipIf(!existsSync(cli))("spade --help", () => {
  it.each(commands.map((command) => command.name))("spade %s --help exits 0 and lists its options with their defaults", (name) => {
    const result = spade([...name.split(" "), "--help"]);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const command = commands.find((c) => c.name === name)!;
    expect(result.stdout).toContain(`usage: spade ${command.usage}`);
    expect(result.stdout).toContain("-h, --help");
    const file = join(root, "main", "cli", "commands", `${name.replace(/ (\w)/g, (_, c: string) => c.toUpperCase())}Command.ts`);
    const options = declaredOptions(readFileSync(file, "utf8"));
    expect(options.length).toBeGreaterThan(0);
    for (const option of options) expect(result.stdout, option).toMatch(new RegExp(`--${option}\\b`));
    // The usage line names every option the list has (it left some out).
    for (const option of options) expect(command.usage, option).toMatch(new RegExp(`--${option}\\b`));
    // Every option line says what it does; boolean flags state their default.
    const optionLines = result.stdout.split("\n").filter((line) => /^\s+(-\w, )?--/.test(line));
    for (const line of optionLines) expect(line.trim().split(/\s{2,}/).length, line).toBeGreaterThanOrEqual(2);
  });

  it("works with -h, after other options, and on subcommands", () => {
    expect(spade(["run", "-h"]).status).toBe(0);
    expect(spade(["report", "--db", "x.sqlite", "--help"]).status).toBe(0);
    const adapters = spade(["adapters", "list", "--help"]);
    expect(adapters.status).toBe(0);
    expect(adapters.stdout).toContain("--base <model.gguf>");
    expect(adapters.stdout).toContain("adapters add <file.gguf> --db <path> --base <model.gguf>"); // in the usage line, not only the list
    const serve = spade(["serve", "--help"]);
    expect(serve.stdout).toMatch(/--port <n>\s+.*Defaults to the last port used with this workspace/);
    expect(serve.stdout).toMatch(/--token <text>\s+.*Defaults to SPADE_TOKEN/);
    const top = spade(["--help"]);
    expect(top.status).toBe(0);
    for (const command of commands) expect(top.stdout).toContain(command.usage);
  });

  it("still refuses unknown options with exit 2, and bare `spade` with the command list and exit 2", () => {
    const wrong = spade(["run", "--nope"]);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain("spade run:");
    expect(spade([]).status).toBe(2);
  });
});
