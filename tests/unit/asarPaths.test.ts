// A packaged app keeps its code in app.asar, which only Electron's own fs can read: every path a
// child process or Node's permission model reads must be mapped to app.asar.unpacked, and
// electron-builder.yml's asarUnpack must put exactly those files (plus the native modules the main
// process loads) there. Simulated with a fake packaged tree built from out/engine.
import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { unpackedPath } from "../../main/paths.js";

const root = join(import.meta.dirname, "..", "..");
const engine = join(root, "out", "engine", "main");
const dir = mkdtempSync(join(tmpdir(), "spade-asar-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Native modules the main process loads with dlopen (not a child): unpacked too, for the loader. */
const nativeModules = ["node_modules/better-sqlite3", "node_modules/node-llama-cpp", "node_modules/@node-llama-cpp"];

/** The `asarUnpack` globs of electron-builder.yml. */
function asarUnpackGlobs(): string[] {
  const lines = readFileSync(join(root, "electron-builder.yml"), "utf8").split("\n");
  const start = lines.findIndex((line) => /^asarUnpack:\s*$/.test(line));
  expect(start, "electron-builder.yml has an asarUnpack list").toBeGreaterThanOrEqual(0);
  const globs: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\s*#/.test(line)) continue;
    const item = /^\s+-\s+"?([^"#]+?)"?\s*$/.exec(line);
    if (!item) break;
    globs.push(item[1]!);
  }
  return globs;
}

function globToRegExp(glob: string): RegExp {
  const body = glob.split("**").map((part) => part.split("*").map((text) => text.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join("[^/]*")).join(".*");
  return new RegExp(`^${body}$`);
}

/** True when a file inside `folder` (relative, posix) is unpacked by one of the globs. */
function unpackedBy(globs: string[], folder: string): string | undefined {
  return globs.find((glob) => globToRegExp(glob).test(`${folder}/some-file`));
}

describe("unpackedPath", () => {
  it("maps a path into app.asar to app.asar.unpacked and leaves others alone", () => {
    expect(unpackedPath("/opt/SPADE Workbench/resources/app.asar/out/engine/main/sandbox/child")).toBe("/opt/SPADE Workbench/resources/app.asar.unpacked/out/engine/main/sandbox/child");
    expect(unpackedPath("/opt/app/resources/app.asar")).toBe("/opt/app/resources/app.asar.unpacked");
    expect(unpackedPath("C:\\Program Files\\SPADE\\resources\\app.asar\\resources\\python")).toBe("C:\\Program Files\\SPADE\\resources\\app.asar.unpacked\\resources\\python");
    expect(unpackedPath("/opt/app/resources/app.asar.unpacked/x")).toBe("/opt/app/resources/app.asar.unpacked/x");
    expect(unpackedPath("/home/me/app.asarx/x")).toBe("/home/me/app.asarx/x");
    expect(unpackedPath("/work/repo/node_modules/pyodide")).toBe("/work/repo/node_modules/pyodide");
  });
});

describe.skipIf(!existsSync(join(engine, "sandbox", "sandboxLaunch.js")))("a packaged app's child-process paths", () => {
  it("point into app.asar.unpacked, and electron-builder.yml unpacks exactly what the children read", () => {
    // A fake packaged app: the engine modules where electron-builder puts them, inside "app.asar"
    // (a folder here; a file in a real package), and the unpacked side next to it.
    const asar = join(dir, "resources", "app.asar");
    const unpacked = `${asar}.unpacked`;
    for (const base of [asar, unpacked]) {
      mkdirSync(join(base, "out", "engine", "main", "sandbox", "child"), { recursive: true });
      mkdirSync(join(base, "node_modules", "pyodide"), { recursive: true });
      writeFileSync(join(base, "package.json"), JSON.stringify({ name: "spade-workbench", type: "module" }));
      copyFileSync(join(root, "node_modules", "pyodide", "package.json"), join(base, "node_modules", "pyodide", "package.json"));
      // The whole compiled engine, as electron-builder packs it (the launcher imports its confinement layers).
      cpSync(join(engine, ".."), join(base, "out", "engine"), { recursive: true });
    }
    cpSync(join(root, "resources", "python"), join(unpacked, "resources", "python"), { recursive: true });
    const script = `
      const launch = await import(${JSON.stringify(pathToFileURL(join(asar, "out", "engine", "main", "sandbox", "sandboxLaunch.js")).href)});
      const paths = await import(${JSON.stringify(pathToFileURL(join(asar, "out", "engine", "main", "paths.js")).href)});
      const { args } = launch.buildSandboxLaunch({ networkIsolation: "off" });
      console.log(JSON.stringify({
        reads: args.filter((arg) => arg.startsWith("--allow-fs-read=")).map((arg) => arg.slice("--allow-fs-read=".length)),
        script: launch.sandboxHostScript(),
        pyodide: launch.pyodideDirectory(),
        python: paths.resourcePath("python"),
        trainers: paths.resourcePath("trainers"),
      }));
    `;
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", env: { ...process.env, SPADE_RESOURCES_ROOT: asar } });
    expect(result.status, result.stderr).toBe(0);
    const seen = JSON.parse(result.stdout.trim()) as { reads: string[]; script: string; pyodide: string; python: string; trainers: string };
    // What the children read of the app (the OS's own paths, such as /proc/self/, are not packaged).
    const appReads = seen.reads.filter((path) => path.startsWith(dir + sep));
    const childReads = [...appReads, seen.script, seen.pyodide, seen.python, seen.trainers];
    expect(appReads.length).toBeGreaterThanOrEqual(2);
    for (const path of childReads) expect(path.startsWith(unpacked + sep), path).toBe(true);
    expect(existsSync(join(seen.python, "spade_sandbox.py"))).toBe(true);

    // Every folder a child reads is unpacked by electron-builder.yml...
    const globs = asarUnpackGlobs();
    const folders = [...new Set(childReads.map((path) => relative(unpacked, path).split(sep).join("/")).map((rel) => (rel.endsWith(".mjs") ? rel.slice(0, rel.lastIndexOf("/")) : rel)))];
    for (const folder of [...folders, ...nativeModules]) expect(unpackedBy(globs, folder), `${folder} is not in asarUnpack`).toBeDefined();
    // ...and nothing else is: every glob serves a child's read or a native module.
    for (const glob of globs) {
      const serves = [...folders, ...nativeModules].some((folder) => unpackedBy([glob], folder) !== undefined);
      expect(serves, `asarUnpack entry ${glob} is read by no child process and is no native module`).toBe(true);
    }
  });
});
