import { describe, expect, it } from "vitest";
import { NoConfinement } from "../../main/sandbox/confinement/noConfinement.js";
import { SandboxSiblingError, SandboxTimeoutError } from "../../main/sandbox/errors.js";
import { SandboxProcess } from "../../main/sandbox/SandboxProcess.js";
import type { SandboxLaunch } from "../../main/sandbox/sandboxLaunch.js";

// The engine's side of a process shared by several plays, against scripted children: requests go
// one at a time, a request's time-out counts from when it is sent, and a process that ends (or a
// sibling that can no longer be parked) fails every other play with an error that names why.

/**
 * A child that answers every request line by line: `delays[op or play]` ms before answering
 * (busy-waiting, as a long step would), `shareable` as given per play ("false" from the play named
 * `unparkable` on).
 */
function scriptedChild(script: { delays?: Record<string, number>; unparkable?: number; hangOn?: number }): SandboxLaunch {
  const source = `
const fs = require("fs");
const script = ${JSON.stringify(script)};
const buffer = Buffer.alloc(1 << 20);
let text = "";
const send = (s) => fs.writeSync(3, s + "\\n");
for (;;) {
  const newline = text.indexOf("\\n");
  if (newline < 0) { const n = fs.readSync(3, buffer); if (n === 0) process.exit(0); text += buffer.subarray(0, n).toString(); continue; }
  const request = JSON.parse(text.slice(0, newline));
  text = text.slice(newline + 1);
  if (request.op === "init") { send(JSON.stringify({ id: request.id, ok: true, output: "", startMs: 1, snapshot: null, memoryBytes: 1 })); continue; }
  if (script.hangOn === request.play) { for (;;) {} }
  const delay = (script.delays || {})[String(request.play)] || 0;
  const end = Date.now() + delay;
  while (Date.now() < end) {}
  const shareable = script.unparkable !== request.play;
  const extra = request.op === "open" ? ',"fromBase":false,"resetMs":null' : "";
  send('{"id":' + request.id + ',"ok":true,"output":""' + extra + ',"shareable":' + shareable + ',"switchMs":null,"reply":{"ok":true,"printed":"","result":{"play":' + request.play + '}}}');
}
`;
  return { command: process.execPath, args: ["-e", source], extraInputs: [], env: {}, confinement: new NoConfinement("test"), isolation: "test", confinementSummary: "test" };
}

async function start(script: Parameters<typeof scriptedChild>[0]): Promise<SandboxProcess> {
  const started = await SandboxProcess.start({
    launch: scriptedChild(script),
    files: {},
    snapshotPath: null,
    wantSnapshot: false,
    memoryLimitMb: 2048,
    memoryPollMs: 10,
    idleCpuLimitMs: 60_000,
    startTimeoutMs: 20_000,
    maxFrameBytes: 1024 * 1024,
  });
  return started.process;
}

const open = (process: SandboxProcess, play: number, timeoutMs = 5000) =>
  process.request({ op: "open", code: "x", maxObservationChars: 1, maxPrintChars: 1, textCaps: { hint: 1, solution: 1, exception: 1, traceback: 1, className: 1, tools: 1 }, play }, "open", timeoutMs, { play });
const call = (process: SandboxProcess, play: number, timeoutMs: number) => process.request({ op: "call", json: "{}", play }, "step()", timeoutMs, { play });

describe("a sandbox process shared by several plays", () => {
  it("counts a request's time-out from when it is sent, not while it waits behind a sibling's long step", async () => {
    const process = await start({ delays: { "1": 900 } });
    try {
      const first = process.beginPlay();
      const second = process.beginPlay();
      await Promise.all([open(process, first), open(process, second)]);
      const started = performance.now();
      // The sibling's step takes 900 ms; this play's step has 400 ms, and answers at once when sent.
      const [long, short] = await Promise.all([call(process, first, 5000), call(process, second, 400)]);
      expect(performance.now() - started).toBeGreaterThanOrEqual(850);
      expect(long.reply).toEqual({ ok: true, printed: "", result: { play: first } });
      expect(short.reply).toEqual({ ok: true, printed: "", result: { play: second } });
      expect(process.alive).toBe(true);
    } finally {
      process.kill();
    }
  });

  it("lets a play wait behind all its siblings' long steps, twice its own step limit in all, and still answer", async () => {
    // The documented worst case at the default of 4 plays per process, up to (plays - 1) x the step
    // limit: three siblings' steps of 1,000 ms each (two thirds of the 1,500 ms limit, leaving room
    // for a loaded machine) queue before the fourth play's, which waits 3 s in all.
    const limitMs = 1500;
    const process = await start({ delays: { "1": 1000, "2": 1000, "3": 1000 } });
    try {
      const plays = [process.beginPlay(), process.beginPlay(), process.beginPlay(), process.beginPlay()];
      await Promise.all(plays.map((play) => open(process, play)));
      const started = performance.now();
      const waited: number[] = [];
      const replies = await Promise.all(plays.map((play) => call(process, play, limitMs).then((reply) => (waited.push(performance.now() - started), reply))));
      expect(Math.max(...waited)).toBeGreaterThanOrEqual(3 * 1000 - 50);
      expect(Math.max(...waited)).toBeGreaterThan(2 * limitMs);
      replies.forEach((reply, index) => expect(reply.reply).toEqual({ ok: true, printed: "", result: { play: plays[index] } }));
      expect(process.alive).toBe(true);
    } finally {
      process.kill();
    }
  });

  it("fails every play a process holds when a sibling's call times out: the sibling its time-out, the others a sibling error naming it", async () => {
    const process = await start({ hangOn: 1 });
    const stuck = process.beginPlay();
    const waiting = process.beginPlay();
    const parked = process.beginPlay();
    await Promise.all([open(process, waiting), open(process, parked)]);
    const [own, sibling] = await Promise.all([call(process, stuck, 300).catch((error: unknown) => error), call(process, waiting, 5000).catch((error: unknown) => error)]);
    expect(own).toBeInstanceOf(SandboxTimeoutError);
    expect(sibling).toBeInstanceOf(SandboxSiblingError);
    expect((sibling as SandboxSiblingError).neverRan).toBe(true);
    expect((sibling as Error).message).toMatch(/sibling play .* ended the process: step\(\): timeout, no answer within 300 ms/);
    // The parked play had nothing in flight: its next call says why, without reaching any process.
    expect(process.siblingLoss(parked)).toMatch(/timeout, no answer within 300 ms/);
    expect(process.siblingLoss(stuck)).toBeNull();
    const later = await call(process, parked, 1000).catch((error: unknown) => error);
    expect(later).toBeInstanceOf(SandboxSiblingError);
  });

  it("drops the other plays when a play can no longer be parked, and fails their waiting requests before they are sent", async () => {
    const process = await start({ unparkable: 2, delays: { "2": 300 } });
    try {
      const [first, second, third] = [process.beginPlay(), process.beginPlay(), process.beginPlay()];
      await Promise.all([open(process, first), open(process, third)]);
      expect(process.canTakePlay(4)).toBe(false); // play 2's open is not answered yet
      const [opened, queued] = await Promise.all([open(process, second), call(process, third, 5000).catch((error: unknown) => error)]);
      expect(opened.shareable).toBe(false);
      expect(queued).toBeInstanceOf(SandboxSiblingError);
      expect((queued as Error).message).toMatch(/changed state outside the interpreter's memory .* during its open/);
      expect(process.siblingLoss(first)).toMatch(/parked state could no longer be put back exactly/);
      expect(process.siblingLoss(second)).toBeNull();
      expect(process.canTakePlay(4)).toBe(false);
      // The play that changed the state keeps the process to itself.
      expect((await call(process, second, 1000)).reply).toEqual({ ok: true, printed: "", result: { play: second } });
      expect(process.alive).toBe(true);
    } finally {
      process.kill();
    }
  });

  it("takes another play only after every open play's open was answered shareable, up to the most plays allowed", async () => {
    const process = await start({});
    try {
      expect(process.canTakePlay(2)).toBe(false); // no play yet: a never-used process is not shared
      const first = process.beginPlay();
      expect(process.canTakePlay(2)).toBe(false);
      await open(process, first);
      expect(process.canTakePlay(2)).toBe(true);
      expect(process.canTakePlay(1)).toBe(false);
      process.reservePlay();
      expect(process.canTakePlay(2)).toBe(false);
      const second = process.beginPlay();
      await open(process, second);
      expect(process.playsOpen).toBe(2);
      expect(process.canTakePlay(3)).toBe(true);
      process.endPlay(second);
      const exclusive = process.beginPlay(true);
      await open(process, exclusive);
      expect(process.canTakePlay(4)).toBe(false);
    } finally {
      process.kill();
    }
  });
});
