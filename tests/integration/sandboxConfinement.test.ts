import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BubblewrapConfinement } from "../../main/sandbox/confinement/bubblewrapConfinement.js";
import { chooseConfinement } from "../../main/sandbox/confinement/chooseConfinement.js";
import { buildSeccompFilter, refusedSyscallNames } from "../../main/sandbox/confinement/seccompFilter.js";
import { processTree } from "../../main/sandbox/processMemory.js";
import { buildSandboxLaunch } from "../../main/sandbox/sandboxLaunch.js";
import { SNAPSHOT_HEADER_BYTES } from "../../main/sandbox/snapshotCache.js";
import { TEST_SNAPSHOT_DIR } from "../support/sandboxTestPool.js";

/** The open descriptors of a host process that point at `path`. */
function descriptorsTo(pid: number, path: string): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).filter((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === path;
      } catch {
        return false;
      }
    });
  } catch {
    return [];
  }
}

// The OS layer on its own: plain JavaScript (playing code that got out of Python and out of
// Node's permission model) run under bubblewrap with the seccomp filter, against real host
// resources. bubblewrap is installed by .ci/run; these tests require it.

const bwrap = ["/usr/bin/bwrap", "/bin/bwrap"].find((path) => existsSync(path));

let dir: string;
let unixServer: Server;
let tcpServer: Server;
let contacts = 0;
let tcpPort = 0;

function runConfined(script: string, inherited: number | null = null): Promise<Record<string, string>> {
  const confinement = new BubblewrapConfinement(bwrap as string);
  const wrapped = confinement.wrap({ executable: process.execPath, args: ["-e", script], readOnlyPaths: [], env: {} });
  return new Promise((resolve, reject) => {
    const stdio: Array<"ignore" | "pipe" | number> = ["ignore", "pipe", "pipe", "ignore", "pipe"];
    if (inherited !== null) stdio.push(inherited);
    const child = spawn(wrapped.command, wrapped.args, { stdio, env: wrapped.env });
    (child.stdio[4] as NodeJS.WritableStream).end(wrapped.extraInputs[0] as Buffer);
    let out = "";
    let err = "";
    child.stdout?.on("data", (chunk) => (out += chunk));
    child.stderr?.on("data", (chunk) => (err += chunk));
    child.on("exit", () => {
      try {
        resolve(JSON.parse(out.trim().split("\n").at(-1) ?? "") as Record<string, string>);
      } catch {
        reject(new Error(`no result: ${out} ${err}`));
      }
    });
  });
}

const ATTACK = (socketPath: string, port: number, fd: number) => `
const net = require("net"), os = require("os"), fs = require("fs");
const r = {};
const attempt = (name, fn) => { try { r[name] = "ok: " + fn(); } catch (e) { r[name] = "blocked: " + (e.code || e.message); } };
attempt("setpriority", () => os.setPriority(${process.pid}, 19));
attempt("setpriority_self", () => os.setPriority(0, 10));
attempt("kill_pid1", () => process.kill(1, "SIGTERM"));
attempt("write_inherited", () => fs.writeSync(${fd}, "pwned"));
attempt("read_host_marker", () => fs.readFileSync(${JSON.stringify(socketPath)}));
attempt("host_tmp", () => fs.readdirSync("/tmp").join(","));
attempt("processes", () => fs.readdirSync("/proc").filter((n) => /^\\d+$/.test(n)).join(","));
const done = () => console.log(JSON.stringify(r));
let pending = 2;
const finish = (name) => (e) => { r[name] = e ? "blocked: " + (e.code || e.message) : "ok: connected"; if (--pending === 0) done(); };
const u = net.connect(${JSON.stringify(socketPath)}, () => { u.write("hello"); finish("unix")(); }); u.on("error", finish("unix"));
const t = net.connect(${port}, "127.0.0.1", () => { t.write("hello"); finish("tcp")(); }); t.on("error", finish("tcp"));
`;

/** Reads host data of /proc, other processes' command lines and its own descriptors, as plain JavaScript. */
const PROC_ATTACK = `
const fs = require("fs");
const r = {};
for (const name of ["version", "meminfo", "cpuinfo", "cmdline", "stat", "uptime", "loadavg", "modules", "sys/kernel/hostname", "sys/kernel/osrelease"]) {
  try { const text = fs.readFileSync("/proc/" + name, "utf8"); r[name] = text.length ? "ok: " + text.slice(0, 60) : "empty"; } catch (e) { r[name] = "blocked: " + e.code; }
}
const pids = fs.readdirSync("/proc").filter((n) => /^\\d+$/.test(n));
r.processes = pids.join(",");
r.others = pids.filter((pid) => Number(pid) !== process.pid).map((pid) => { try { return fs.readFileSync("/proc/" + pid + "/cmdline", "utf8"); } catch (e) { return e.code; } }).join("|");
r.fds = fs.readdirSync("/proc/self/fd").filter((fd) => { try { fs.fstatSync(Number(fd)); return !fs.readlinkSync("/proc/self/fd/" + fd).startsWith("anon_inode:") && !fs.readlinkSync("/proc/self/fd/" + fd).startsWith("pipe:") || Number(fd) <= 2; } catch { return false; } }).join(",");
console.log(JSON.stringify(r));
`;

describe.skipIf(!bwrap)("bubblewrap confinement with the seccomp filter", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "spade-confine-"));
    unixServer = createServer((socket) => {
      contacts++;
      socket.destroy();
    });
    tcpServer = createServer((socket) => {
      contacts++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => unixServer.listen(join(dir, "host.sock"), resolve));
    await new Promise<void>((resolve) => tcpServer.listen(0, "127.0.0.1", resolve));
    tcpPort = (tcpServer.address() as { port: number }).port;
  });
  afterAll(() => {
    unixServer?.close();
    tcpServer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is what the pool picks here", () => {
    expect(chooseConfinement().name).toBe("bubblewrap");
  });

  it("compiles a filter that refuses every listed call", () => {
    const filter = buildSeccompFilter("x64");
    expect(filter.length % 8).toBe(0);
    expect(filter.length / 8).toBeGreaterThan(refusedSyscallNames().length);
    expect(refusedSyscallNames()).toEqual(expect.arrayContaining(["socket", "setpriority", "ptrace", "kill", "io_uring_setup"]));
  });

  it("leaves the host socket, the TCP listener, the host process priority, inherited descriptors and host files alone", async () => {
    const victim = join(dir, "inherited.txt");
    const fd = openSync(victim, "w");
    const before = (await import("node:os")).getPriority(process.pid);
    let results: Record<string, string>;
    try {
      results = await runConfined(ATTACK(join(dir, "host.sock"), tcpPort, 5), fd);
    } finally {
      closeSync(fd);
    }
    expect(results.unix).toMatch(/^blocked/);
    expect(results.tcp).toMatch(/^blocked/);
    expect(results.setpriority).toMatch(/^blocked/);
    expect(results.setpriority_self).toMatch(/^blocked/);
    expect(results.kill_pid1).toMatch(/^blocked/);
    expect(results.read_host_marker).toMatch(/^blocked/);
    expect(results.host_tmp).toMatch(/^blocked/);
    // Its own PID namespace, where the child is PID 1: nothing of the host, no bubblewrap process.
    expect(results.processes).toBe("ok: 1");
    expect((await import("node:os")).getPriority(process.pid)).toBe(before);
    expect(contacts).toBe(0);
    // The descriptor reached the child here (bubblewrap passes it on): the sandbox host closes such descriptors itself (see sandboxHostile).
    expect(readFileSync(victim, "utf8")).toBe(results.write_inherited?.startsWith("ok") ? "pwned" : "");
  });

  it("hides the host's /proc data from code that got out of Python and out of Node's permission model", async () => {
    const results = await runConfined(PROC_ATTACK);
    for (const name of ["version", "meminfo", "cpuinfo", "cmdline", "stat", "uptime", "loadavg", "modules", "sys/kernel/hostname", "sys/kernel/osrelease"]) {
      expect(results[name], name).toMatch(/^(blocked|empty)/);
    }
    // The only process it sees is itself: no command line of bubblewrap (naming the host's folders) or of anything else.
    expect(results.processes).toBe("1");
    expect(results.others).toBe("");
    expect(results.fds).toBe("0,1,2");
  });

  it("starts the child with only the descriptors it is given, whatever the engine inherited without close-on-exec", async () => {
    const victim = join(dir, "inherited-before-start.txt");
    const fd = openSync(victim, "w");
    const engine = resolve("out/engine/main/sandbox/confinement");
    const script = `
import { spawn } from "node:child_process";
import { sandboxChildStdio } from ${JSON.stringify(join(engine, "childStdio.js"))};
import { BubblewrapConfinement } from ${JSON.stringify(join(engine, "bubblewrapConfinement.js"))};
const list = 'const fs = require("fs"); fs.writeSync(3, fs.readdirSync("/proc/self/fd").map((fd) => { try { return fd + "=" + fs.readlinkSync("/proc/self/fd/" + fd); } catch { return fd + "=gone"; } }).join(" ") + "\\\\n");';
const wrapped = new BubblewrapConfinement(${JSON.stringify(bwrap)}).wrap({ executable: process.execPath, args: ["-e", list], readOnlyPaths: [], env: {} });
const run = (stdio) => new Promise((done) => {
  const child = spawn(wrapped.command, wrapped.args, { stdio, env: {} });
  child.stdio[4].end(wrapped.extraInputs[0]);
  let text = "";
  child.stdio[3].on("data", (chunk) => (text += chunk));
  child.on("close", () => done(text.trim()));
});
const plain = await run(["ignore", "ignore", "pipe", "pipe", "pipe"]);
const given = await run(sandboxChildStdio(2));
console.log(JSON.stringify({ plain, given }));
`;
    const stdio: Array<"ignore" | "pipe" | number> = ["ignore", "pipe", "pipe", ...Array.from({ length: 97 }, () => "ignore" as const), fd];
    let out = "";
    try {
      const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio });
      child.stdout?.on("data", (chunk) => (out += chunk));
      await new Promise((done) => child.on("close", done));
    } finally {
      closeSync(fd);
    }
    const { plain, given } = JSON.parse(out.trim()) as { plain: string; given: string };
    // Without the engine's stdio the inherited descriptor reaches the runtime; with it, only /dev/null stands there.
    expect(plain).toContain(`100=${victim}`);
    expect(given).not.toContain(victim);
    expect(given).toMatch(/(^| )100=\/dev\/null( |$)/);
  }, 60_000);

  it("closes a descriptor the engine inherited before any environment code can use it", async () => {
    const snapshots = existsSync(TEST_SNAPSHOT_DIR) ? readdirSync(TEST_SNAPSHOT_DIR).filter((name) => name.endsWith(".bin")).map((name) => join(TEST_SNAPSHOT_DIR, name)) : [];
    const snapshot = snapshots.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0] ?? null;
    const launch = buildSandboxLaunch({ snapshotPath: snapshot });
    const snapshotHeader = snapshot ? readFileSync(snapshot).subarray(0, SNAPSHOT_HEADER_BYTES).toString("base64") : null;
    const victim = join(dir, "inherited-by-engine.txt");
    const fd = openSync(victim, "w");
    const child = spawn(launch.command, launch.args, { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe", "ignore", "ignore", fd], env: launch.env });
    closeSync(fd);
    (child.stdio[4] as NodeJS.WritableStream).end(launch.extraInputs[0] as Buffer);
    try {
      const reply = await new Promise<string>((resolve, reject) => {
        let text = "";
        child.stdio[3]?.on("data", (chunk) => {
          text += chunk;
          if (text.includes("\n")) resolve(text);
        });
        child.on("exit", (code) => reject(new Error(`the child exited with ${code}`)));
        const files = Object.fromEntries(["spade_sandbox.py", "spade_env.py", "spade_repair.py", "spade_determinism.py", "spade_bridges.py"].map((name) => [name, readFileSync(join("resources", "python", name), "utf8")]));
        (child.stdio[3] as NodeJS.WritableStream).write(`${JSON.stringify({ id: 1, op: "init", files, snapshotPath: snapshot, snapshotHeader, wantSnapshot: false, maxKeptGrowthBytes: 0 })}\n`);
      });
      expect(JSON.parse(reply)).toMatchObject({ id: 1, ok: true });
      const tree = processTree(child.pid as number);
      const runtime = tree.at(-1) as number;
      // The runtime that runs environment code no longer holds it (bubblewrap passes such descriptors on).
      expect(descriptorsTo(runtime, victim)).toEqual([]);
    } finally {
      child.kill("SIGKILL");
    }
    expect(readFileSync(victim, "utf8")).toBe("");
  }, 120_000);
});
