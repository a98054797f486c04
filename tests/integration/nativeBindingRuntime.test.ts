// One better-sqlite3 build per runtime, proved without Electron: the code path that builds the
// Electron window's binding (main/install/nativeBinding.mjs) selects and builds one for a second
// Node runtime of another ABI (Node 22, ABI 127), and the engine's openDatabase opens a workspace
// and runs queries under that runtime through it (SPADE_SQLITE_BINDING -> `nativeBinding`). Without
// it, the same script fails with the ABI message and the hint naming the build to make.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bindingPath, buildBinding, ensureBinding, explainFailure, isBindingCurrent, missingBuildTools, moduleAbis, NativeBuildError, nodeGypEnvironment, nodeTarget, selectBinding, type RuntimeTarget } from "../../main/install/nativeBinding.mjs";
import { ensureSecondNode, secondNodeVersion } from "../support/secondNodeRuntime.js";

const root = join(import.meta.dirname, "..", "..");
const storeModule = join(root, "out", "engine", "main", "store", "index.js");
const dir = mkdtempSync(join(tmpdir(), "spade-binding-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Opens a workspace under the given runtime, writes two runs and reads them back. */
function workspaceScript(workspace: string): string {
  return `
    const store = await import(${JSON.stringify(pathToFileURL(storeModule).href)});
    const db = store.openDatabase(${JSON.stringify(workspace)});
    store.createRun(db, { name: "first", seed: 1 });
    store.createRun(db, { name: "second", seed: 2 });
    const names = store.listRuns(db).map((run) => run.name);
    const version = store.readSchemaVersion(db);
    db.close();
    const again = store.openDatabase(${JSON.stringify(workspace)}, { readonly: true });
    const count = again.prepare("SELECT count(*) AS n FROM runs").get().n;
    again.close();
    console.log(JSON.stringify({ node: process.versions.node, abi: process.versions.modules, names, version, count }));
  `;
}

function runUnder(node: string, script: string, env: Record<string, string | undefined>) {
  const { SPADE_SQLITE_BINDING: _drop, ...base } = process.env;
  return spawnSync(node, ["--input-type=module", "-e", script], { encoding: "utf8", env: { ...base, ...env }, timeout: 120_000 });
}

describe.skipIf(process.platform !== "linux" || process.arch !== "x64" || !existsSync(storeModule))("better-sqlite3 for a second runtime", () => {
  let node: string;
  let target: RuntimeTarget;
  beforeAll(() => {
    node = ensureSecondNode(root);
    target = nodeTarget(node);
  }, 300_000);

  it("reads the runtime's version, ABI and headers from the executable", () => {
    expect(target).toMatchObject({ runtime: "node", version: secondNodeVersion });
    expect(target.abi).not.toBe(process.versions.modules);
    expect(target.nodedir && existsSync(join(target.nodedir, "include", "node", "node.h"))).toBe(true);
    // The runtime npm built node_modules for keeps better-sqlite3's own build; any other gets a stored one.
    expect(selectBinding({ runtime: "node", version: process.versions.node, abi: process.versions.modules }, root)).toBeNull();
    expect(selectBinding(target, root)).toBe(bindingPath(target, root));
    expect(selectBinding({ runtime: "electron", version: "40.10.0", abi: "143" }, root)).toContain(join(".spade-native", "electron-143"));
  });

  it("fails under Node 22 with the Node 20 build, naming the build to make", () => {
    const result = runUnder(node, workspaceScript(join(dir, "without.sqlite")), {});
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/NODE_MODULE_VERSION 115[\s\S]*NODE_MODULE_VERSION 127|compiled against a different Node\.js version/);
    expect(result.stderr).toContain("main/install/nativeBinding.mjs");
  });

  it("builds the binding once (cached by ABI), then opens a workspace and runs queries under Node 22", () => {
    const path = ensureBinding(target, { root, log: (line) => console.log(line) });
    expect(path).toBe(bindingPath(target, root));
    expect(isBindingCurrent(target, root)).toBe(true);
    // The stored module registers for Node 22's ABI, the default build still for this Node's.
    expect(moduleAbis(path!)).toEqual([target.abi]);
    expect(moduleAbis(join(root, "node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node"))).toEqual([process.versions.modules]);
    expect(existsSync(join(root, "node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node"))).toBe(true);

    const result = runUnder(node, workspaceScript(join(dir, "with.sqlite")), { SPADE_SQLITE_BINDING: path! });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout.trim()) as { node: string; abi: string; names: string[]; version: number; count: number };
    expect(report.node).toBe(secondNodeVersion);
    expect(report.abi).toBe(target.abi);
    expect(report.names.sort()).toEqual(["first", "second"]);
    expect(report.count).toBe(2);
    expect(report.version).toBeGreaterThan(0);

    // The Node 20 build is untouched: this process (and the CLI) still opens workspaces with it.
    const here = runUnder(process.execPath, workspaceScript(join(dir, "node20.sqlite")), {});
    expect(here.status, here.stderr).toBe(0);
    expect(JSON.parse(here.stdout.trim())).toMatchObject({ abi: process.versions.modules, count: 2 });
  }, 600_000);

  it("rebuilds when the stamp names another version of the same ABI", () => {
    // A stamp for another version (an upgraded runtime of the same ABI) is not current.
    expect(isBindingCurrent({ ...target, version: "22.0.0" }, root)).toBe(false);
  });
});

describe("when a binding cannot be built", () => {
  it("keeps npm settings that force other headers (nodedir=/usr) away from node-gyp", () => {
    const env = nodeGypEnvironment({ PATH: "/usr/bin", npm_config_nodedir: "/usr", npm_config_target: "20.0.0", npm_config_runtime: "node", npm_config_disturl: "x", HOME: "/home/me" });
    expect(env).toEqual({ PATH: "/usr/bin", HOME: "/home/me", npm_config_jobs: "max" });
  });

  it("names the missing build tools", () => {
    const env = { PATH: "/no/such/bin" };
    expect(missingBuildTools(env)).toEqual(["python3 (node-gyp runs it)", "make", "a C++ compiler (c++/g++/clang++)"]);
    const target: RuntimeTarget = { runtime: "electron", version: "40.10.0", abi: "143" };
    expect(() => buildBinding(target, { root, env })).toThrow(new NativeBuildError("cannot build better-sqlite3 for Electron 40.10.0 (ABI 143): missing python3 (node-gyp runs it), make, a C++ compiler (c++/g++/clang++)"));
  });

  it("gives the download's own error as the reason, not a Node warning whose process id looks like a status code", () => {
    const target: RuntimeTarget = { runtime: "electron", version: "40.10.0", abi: "143" };
    const output = [
      "gyp http GET http://127.0.0.1:9/headers/v40.10.0/node-v40.10.0-headers.tar.gz",
      "(node:4092) [UNDICI-EHPA] Warning: EnvHttpProxyAgent is experimental, expect them to change at any time.",
      "gyp WARN install got an error, rolling back install",
      "gyp ERR! stack Error: connect ECONNREFUSED 127.0.0.1:9",
    ].join("\n");
    expect(explainFailure(target, output, undefined)).toBe(
      "the Electron 40.10.0 (ABI 143) headers could not be downloaded from http://127.0.0.1:9/headers/v40.10.0/node-v40.10.0-headers.tar.gz (Error: connect ECONNREFUSED 127.0.0.1:9); with network access, `npm start` builds it on its next start",
    );
  });

  it.skipIf(missingBuildTools().length > 0)("names the headers it could not download for Electron", async () => {
    const { createServer } = await import("node:net");
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", () => resolve()));
    const address = holder.address();
    const port = typeof address === "object" && address ? address.port : 0;
    await new Promise<void>((resolve) => holder.close(() => resolve()));
    const target: RuntimeTarget = { runtime: "electron", version: "40.10.0", abi: "143", distUrl: `http://127.0.0.1:${port}/headers` };
    let message = "";
    try {
      buildBinding(target, { root });
    } catch (error) {
      expect(error).toBeInstanceOf(NativeBuildError);
      message = (error as Error).message;
    }
    expect(message).toContain(`the Electron 40.10.0 (ABI 143) headers could not be downloaded from http://127.0.0.1:${port}/headers/v40.10.0/`);
    expect(message).toContain("ECONNREFUSED");
  }, 120_000);
});
