import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { envPackageFormats, type PackagedEnvironment } from "../../shared/envExport.js";
import { exportEnvironmentPackages } from "../../main/exports/packages/exportEnvironmentPackages.js";
import { packageNames } from "../../main/exports/packages/packageNames.js";
import { tomlString } from "../../main/exports/packages/tomlString.js";

// Issue #32: an environment's class name (`__name__`, which its code can set to anything), source,
// hint and skill are environment text. Exported, they must never become code: every format is
// written for each hostile text below and for a plain twin with the same derived names, and
// tests/fixtures/exports/compare_generated.py checks with Python's own parsers (ast, tomllib,
// yaml, json) that each generated file parses and equals its twin once string literals are blanked.

const root = fileURLToPath(new URL("../..", import.meta.url));
const code = readFileSync(join(root, "resources/environments/story_word.py"), "utf8");

const hostile = [
  '"""\n__import__("os").system("touch /tmp/pwned")\n"""',
  '"""\nпечать = 1\n"""', // no ASCII letter: the text once fell back to the raw class name
  "'''\n1/0\n'''",
  '"\n]\n[x]\nimport = 1 #',
  '\\"""\\\n\t\r\n\f\v\u2028\u2029\u0085\0#',
  '{{title}}{{name}}"""',
  "🙂\uD800\uDFFF",
  "ClassEnv",
  "Env",
  "",
  "2048Env",
  "JsonEnv",
  "MyEnvironmentEnv",
  "FooEnvEnv",
  `${"A".repeat(300)}Env`,
  "import os; os.system('id')#Env",
];

function environment(text: string, plain: boolean): PackagedEnvironment {
  return { className: plain ? twinClassName(text) : text, code, hint: plain ? "hint" : text, skill: plain ? "skill" : text, winRate: 0.5, hintWinRate: 1, regret: 0.5, source: plain ? "set:x/y" : text, runId: 1, iteration: 0, maxTurns: 5 };
}

/** A plain class name that packageNames turns into the same package names as `text`. */
function twinClassName(text: string): string {
  const [names] = packageNames([text]);
  return `${names!.name.split("_").map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join("_")}Env`;
}

function python(args: string[]) {
  return spawnSync("/usr/bin/python3", args, { encoding: "utf8", timeout: 120_000 });
}

describe("environment text in exports (issue #32)", () => {
  it("derives only identifiers of their shape, whatever the class name", () => {
    const names = hostile.map((text) => packageNames([text])[0]!);
    for (const [i, name] of names.entries()) {
      expect(name.name, JSON.stringify(hostile[i])).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(name.title, JSON.stringify(hostile[i])).toMatch(/^[A-Za-z0-9 ]+$/);
      expect(name.name.length).toBeLessThanOrEqual(46);
      // the twin really is a twin
      expect(packageNames([twinClassName(hostile[i]!)])[0]).toMatchObject({ name: name.name, prefix: name.prefix, module: name.module, gemId: name.gemId });
    }
    expect(names.map((name) => name.name).slice(7, 14)).toEqual(["class_game", "env", "environment", "env_2048", "json_game", "myenvironment", "fooenv"]);
  });

  it("keeps names unique within one export", () => {
    expect(packageNames(["Env", "", "MazeEnv", "Maze"]).map((name) => name.name)).toEqual(["env", "environment", "maze", "maze_2"]);
  });

  it("renders any other text as a literal Python and TOML read back as the same string", () => {
    const texts = hostile.filter((text) => !/[\uD800-\uDFFF]/.test(text)); // a lone surrogate cannot round-trip; it becomes U+FFFD
    const literals = texts.map(tomlString);
    for (const literal of literals) expect(literal).toMatch(/^"[\x20-\x7e]*"$/);
    const script = `import ast, json, sys, tomllib\nfor line in sys.stdin:\n    literal = json.loads(line)\n    print(json.dumps([ast.literal_eval(literal), tomllib.loads("v = " + literal)["v"]]))\n`;
    const result = spawnSync("/usr/bin/python3", ["-c", script], { input: literals.map((literal) => JSON.stringify(literal)).join("\n"), encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.trim().split("\n").map((line) => JSON.parse(line) as string[])).toEqual(texts.map((text) => [text, text]));
  });

  it("every format's files parse and equal a plain twin's beyond string literals, for every hostile text", () => {
    const dir = mkdtempSync(join(tmpdir(), "spade-export-injection-"));
    const pairs: Array<{ hostile: string; twin: string }> = [];
    for (const format of envPackageFormats) {
      for (const [i, text] of hostile.entries()) {
        const pair = { hostile: join(dir, format, `${i}-hostile`), twin: join(dir, format, `${i}-twin`) };
        exportEnvironmentPackages([environment(text, false)], { format, outDir: pair.hostile });
        exportEnvironmentPackages([environment(text, true)], { format, outDir: pair.twin });
        pairs.push(pair);
      }
    }
    const input = join(dir, "pairs.json");
    writeFileSync(input, JSON.stringify(pairs));
    const result = python([join(root, "tests/fixtures/exports/compare_generated.py"), input]);
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { checked: number; problems: unknown[] };
    expect(report.problems).toEqual([]);
    expect(report.checked).toBeGreaterThan(hostile.length * 3 * 10);
  });
});
