import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEXT_CAPS } from "../../main/sandbox/capText.js";
import type { SandboxLaunch } from "../../main/sandbox/sandboxLaunch.js";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { SandboxProcess, type StartedSandbox } from "../../main/sandbox/SandboxProcess.js";
import { createTestPool } from "../support/sandboxTestPool.js";

// The child's copies and restores of the interpreter's memory leave pages that are zero and stay
// zero alone (main/sandbox/child/sparseMemory.mjs). Whatever a play wrote, a restore must give
// back exactly the bytes it restores: compared here by the SHA-256 of the whole memory, after a
// game that fills megabytes of memory that was zero when the process became ready.

// Fills 3 MiB that the interpreter had not used (zero in the pristine memory) with non-zero bytes,
// and keeps them while the play is open. Not more: an interpreter booted from a freshly written
// snapshot has less than 4 MiB of such room, and 4 MiB grew its memory (which no restore undoes: the
// digests then differ in length, and the recycle is refused).
const DIRTY = `
class DirtyEnv:
    def reset(self, seed=None):
        global held
        held = bytearray(b"\\x5a") * (3 << 20)
        return str(sum(held[::4096])), {}
    def step(self, action):
        return str(len(held) + held[-1]), 0.0, True, False, {}
`;

describe("exact restores of the interpreter's memory", () => {
  let pool: SandboxPool;
  let child: SandboxProcess;
  let started: StartedSandbox;
  beforeAll(async () => {
    // The pool writes (or finds) the snapshot; the child below loads from it as the pool's processes do.
    pool = await createTestPool({ prewarm: 0 });
    const from = pool as unknown as { launch: SandboxLaunch; files: Record<string, string>; snapshotPath: string | null; snapshotHeader: Buffer | null };
    expect(from.snapshotPath).not.toBeNull();
    started = await SandboxProcess.start({ launch: from.launch, files: from.files, snapshotPath: from.snapshotPath, snapshotHeader: from.snapshotHeader, wantSnapshot: false, memoryLimitMb: 1024, memoryPollMs: 25, idleCpuLimitMs: 5000, startTimeoutMs: 120_000, maxFrameBytes: 4 * 1024 * 1024, recyclable: true });
    child = started.process;
  }, 180_000);
  afterAll(async () => {
    child?.kill();
    await pool?.dispose();
  });

  const open = async (code: string) => {
    const play = child.beginPlay();
    const reply = await child.request({ op: "open", code, maxObservationChars: 65_536, maxPrintChars: 65_536, textCaps: TEXT_CAPS, play }, "open", 20_000, { play });
    expect(reply.reply).toMatchObject({ ok: true });
    return play;
  };
  const call = async (play: number, json: Record<string, unknown>) => {
    const reply = await child.request({ op: "call", json: JSON.stringify(json), play }, "call", 20_000, { play });
    return reply.reply as { ok: boolean; result: unknown };
  };
  const close = async (play: number) => {
    const reply = await child.request({ op: "close", play }, "close", 20_000, { play });
    child.endPlay(play);
    expect(reply.kept).toBe(true);
  };
  const digest = () => child.memoryDigest(20_000);

  it.runIf(process.platform === "linux")("measures a started process's proportional set size beside its resident memory", () => {
    expect(started.rssBytes).toBeGreaterThan(0);
    expect(started.pssBytes).toBeGreaterThan(0);
    // Node's code pages are shared with every other node process: the share is less than the whole.
    expect(started.pssBytes as number).toBeLessThan(started.rssBytes as number);
  });

  it("reports what the pristine copy holds resident: its non-zero pages, well under the memory's size", async () => {
    expect(child.pristineCopyBytes).toBeGreaterThan(1024 * 1024);
    expect(child.pristineCopyBytes).toBeLessThan(0.75 * (child.parkedCopyBytes - 64 * 1024 * 1024));
  });

  it("gives back exactly the base, a parked play and the pristine memory after plays that filled zero pages", async () => {
    const pristine = await digest();

    // The first play starts from the pristine memory and is restored to it.
    let play = await open(DIRTY);
    expect(JSON.stringify(await call(play, { op: "reset", seed: 1 }))).toContain(String(0x5a * 768));
    expect(await digest()).not.toBe(pristine);
    await close(play);
    expect(await digest()).toBe(pristine);

    // The second play's open becomes the base of the later plays.
    play = await open(DIRTY);
    await close(play);
    const base = await digest();

    // Two plays at once: the first fills memory and is parked when the second opens (from the base).
    const first = await open(DIRTY);
    await call(first, { op: "reset", seed: 1 });
    const second = await open(DIRTY);
    expect(await digest()).toBe(base);
    await call(second, { op: "reset", seed: 2 });
    // Back to the first: its filled memory is put back as it was parked.
    expect(JSON.stringify(await call(first, { op: "step", action: "x" }))).toContain(String((3 << 20) + 0x5a));
    await close(first);
    await close(second);
    expect(await digest()).toBe(base);

    // Recycled for another game: exactly the memory the process had when it became ready.
    expect(await child.recycle(20_000)).toMatchObject({ recycled: true });
    expect(await digest()).toBe(pristine);
  }, 120_000);
});
