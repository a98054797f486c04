import { describe, expect, it } from "vitest";
import { NoConfinement } from "../../main/sandbox/confinement/noConfinement.js";
import { SandboxCrashedError, SandboxMemoryError, SandboxProtocolError } from "../../main/sandbox/errors.js";
import { replyProblem, SandboxProcess } from "../../main/sandbox/SandboxProcess.js";
import type { SandboxLaunch } from "../../main/sandbox/sandboxLaunch.js";

// The engine's side of the protocol against fake children that misbehave the way a hijacked
// sandbox could: each must end in an error for that call (or the child's death), never in the
// engine failing.

/** A child that reads the init request from descriptor 3, then runs `after(id)` (JavaScript). */
function fakeChild(after: string): SandboxLaunch {
  const script = `
const fs = require("fs");
const buffer = Buffer.alloc(1 << 20);
let text = "";
while (!text.includes("\\n")) { const n = fs.readSync(3, buffer); if (n === 0) process.exit(0); text += buffer.subarray(0, n).toString(); }
const id = JSON.parse(text.split("\\n")[0]).id;
const send = (s) => fs.writeSync(3, s);
${after}
setInterval(() => {}, 1000);
`;
  return { command: process.execPath, args: ["-e", script], extraInputs: [], env: {}, confinement: new NoConfinement("test"), isolation: "test", confinementSummary: "test" };
}

function start(after: string, overrides: { memoryLimitMb?: number; idleCpuLimitMs?: number; maxFrameBytes?: number } = {}) {
  return SandboxProcess.start({
    launch: fakeChild(after),
    files: {},
    snapshotPath: null,
    wantSnapshot: false,
    memoryLimitMb: overrides.memoryLimitMb ?? 2048,
    memoryPollMs: 10,
    idleCpuLimitMs: overrides.idleCpuLimitMs ?? 60_000,
    startTimeoutMs: 20_000,
    maxFrameBytes: overrides.maxFrameBytes ?? 1024 * 1024,
  });
}

const READY = 'send(JSON.stringify({ id, ok: true, output: "", startMs: 1, snapshot: null, memoryBytes: 1 }) + "\\n");';

function exitOf(process: SandboxProcess): Promise<void> {
  return new Promise((resolve) => process.onExit(resolve));
}

describe("the sandbox protocol, seen from the engine", () => {
  it.each([
    ["a frame that is not JSON", 'send("this is not json\\n");', /not valid JSON/],
    ["a reply to another request", 'send(JSON.stringify({ id: id + 7, ok: true }) + "\\n");', /reply to request/],
    ["a field the protocol does not have", 'send(JSON.stringify({ id, ok: true, structuredClone: 1 }) + "\\n");', /unknown field/],
    ["a field of the wrong type", 'send(JSON.stringify({ id, ok: "yes" }) + "\\n");', /wrong type/],
    ["an oversized frame", 'send("{" + "x".repeat(3 << 20));', /more than 1048576 bytes/],
  ])("kills a child that sends %s with a sandbox protocol violation", async (_name, after, message) => {
    const error = await start(after).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SandboxProtocolError);
    expect((error as Error).message).toMatch(/sandbox protocol violation/);
    expect((error as Error).message).toMatch(message);
  });

  it("kills a child that speaks when nobody asked", async () => {
    const { process } = await start(`${READY}\nsetTimeout(() => send(JSON.stringify({ id, ok: true }) + "\\n"), 200);`);
    await exitOf(process);
    expect(process.alive).toBe(false);
  });

  it("kills a child that burns CPU between requests", async () => {
    const { process } = await start(`${READY}\nsetTimeout(() => { const end = Date.now() + 20000; while (Date.now() < end) {} }, 50);`, { idleCpuLimitMs: 300 });
    await exitOf(process);
    expect(process.alive).toBe(false);
    await expect(process.request({ op: "close", play: 1 }, "close()", 1000)).rejects.toBeInstanceOf(SandboxCrashedError);
  });

  it("kills a child whose memory grows between requests", async () => {
    const { process } = await start(`${READY}\nconst hoard = []; setInterval(() => hoard.push(Buffer.alloc(32 << 20, 1)), 20);`, { memoryLimitMb: 200 });
    await exitOf(process);
    expect(process.alive).toBe(false);
  });

  it("gives a memory error to the call during which the memory limit is crossed", async () => {
    const { process } = await start(`${READY}\nconst hoard = []; fs.readSync(3, buffer); setInterval(() => hoard.push(Buffer.alloc(32 << 20, 1)), 20);`, { memoryLimitMb: 200 });
    const error = await process.request({ op: "close", play: 1 }, "close()", 30_000).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SandboxMemoryError);
  });

  it("checks every field of a reply frame", () => {
    expect(replyProblem({ id: 1, ok: true, reply: { ok: true } }, 1)).toBeNull();
    expect(replyProblem([], 1)).toMatch(/not a JSON object/);
    expect(replyProblem({ id: 1, ok: true, resetMs: -1 }, 1)).toMatch(/resetMs/);
    expect(replyProblem({ id: 1, ok: true, reply: "forged" }, 1)).toMatch(/reply/);
  });
});
